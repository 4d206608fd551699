/** The sign-in form and the moderation queue of the web interface. */
import { Layout } from "./layout.tsx";

/** The sign-in form (`/login`). */
export function LoginView(props: {
  nonce: string;
  instanceName: string;
  next: string;
  email?: string;
  error?: string;
}) {
  return (
    <Layout title={`Sign in · ${props.instanceName}`} nonce={props.nonce}>
      <p class="muted">{props.instanceName}</p>
      <h1>Sign in</h1>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action="/login">
        <input type="hidden" name="next" value={props.next} />
        <label for="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={props.email ?? ""}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <div class="actions">
          <button type="submit" class="approve">Sign in</button>
        </div>
      </form>
    </Layout>
  );
}

/** An event waiting in the moderation queue, as the page shows it. */
export interface QueuedEvent {
  id: number;
  title: string;
  /** When it starts, in words, in the instance's time zone. */
  when: string;
  place: string | null;
  /** Who submitted it: "anonymous" or the user's display name. */
  submitter: string;
}

/** The moderation queue (`/admin`): events waiting for confirmation, each with a Confirm button. */
export function QueueView(props: {
  nonce: string;
  instanceName: string;
  userName: string;
  csrfToken: string;
  events: QueuedEvent[];
  notice?: string;
}) {
  return (
    <Layout title={`Moderation · ${props.instanceName}`} nonce={props.nonce}>
      <p class="muted">
        {props.instanceName} · signed in as {props.userName}
      </p>
      <h1>Waiting for confirmation</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {props.events.length === 0
        ? <p>Nothing is waiting.</p>
        : (
          <ul class="queue">
            {props.events.map((e) => (
              <li class="card">
                <h2 id={`event-${e.id}`}>{e.title}</h2>
                <p>
                  {e.when}
                  {e.place ? ` · ${e.place}` : ""}
                </p>
                <p class="muted">Submitted by {e.submitter}</p>
                <form method="post" action={`/admin/events/${e.id}/confirm`}>
                  <input
                    type="hidden"
                    name="csrf_token"
                    value={props.csrfToken}
                  />
                  <div class="actions">
                    <button
                      type="submit"
                      class="approve"
                      aria-describedby={`event-${e.id}`}
                    >
                      Confirm
                    </button>
                  </div>
                </form>
              </li>
            ))}
          </ul>
        )}
      <form method="post" action="/logout">
        <input type="hidden" name="csrf_token" value={props.csrfToken} />
        <div class="actions">
          <button type="submit" class="deny">Sign out</button>
        </div>
      </form>
    </Layout>
  );
}
