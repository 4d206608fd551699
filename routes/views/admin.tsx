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

/** The fields of the submission form, as typed. */
export type SubmitFields = Record<
  | "title"
  | "start"
  | "end"
  | "place_name"
  | "place_address"
  | "online_link"
  | "tags"
  | "description",
  string
>;

/** The submission form (`/submit`): what was typed is kept, problems shown next to their field. */
export function SubmitView(props: {
  nonce: string;
  instanceName: string;
  timeZone: string;
  anonymous: boolean;
  csrfToken: string | null;
  values: SubmitFields;
  errors: Partial<Record<keyof SubmitFields, string>>;
  error?: string;
}) {
  const { values, errors } = props;
  /** A labelled field with its hint and its problem, tied by aria-describedby. */
  const field = (
    name: keyof SubmitFields,
    label: string,
    input: (describedBy: string | undefined) => unknown,
    hint?: string,
  ) => {
    const ids = [
      hint ? `${name}-hint` : "",
      errors[name] ? `${name}-error` : "",
    ].filter(Boolean).join(" ") || undefined;
    return (
      <div>
        <label for={name}>{label}</label>
        {hint && <p class="hint" id={`${name}-hint`}>{hint}</p>}
        {input(ids)}
        {errors[name] && (
          <p class="field-error" id={`${name}-error`}>{errors[name]}</p>
        )}
      </div>
    );
  };
  return (
    <Layout
      title={`Submit an event · ${props.instanceName}`}
      nonce={props.nonce}
    >
      <p class="muted">{props.instanceName}</p>
      <h1>Submit an event</h1>
      {props.anonymous && (
        <p>Your event is published once an editor has confirmed it.</p>
      )}
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <form method="post" action="/submit">
        {props.csrfToken && (
          <input type="hidden" name="csrf_token" value={props.csrfToken} />
        )}
        {field("title", "Title", (d) => (
          <input
            id="title"
            name="title"
            type="text"
            required
            maxlength={200}
            value={values.title}
            aria-describedby={d}
            aria-invalid={errors.title ? "true" : undefined}
          />
        ))}
        {field(
          "start",
          "Starts",
          (d) => (
            <input
              id="start"
              name="start"
              type="datetime-local"
              required
              value={values.start}
              aria-describedby={d}
              aria-invalid={errors.start ? "true" : undefined}
            />
          ),
          `(${props.timeZone} time)`,
        )}
        {field("end", "Ends", (d) => (
          <input
            id="end"
            name="end"
            type="datetime-local"
            value={values.end}
            aria-describedby={d}
            aria-invalid={errors.end ? "true" : undefined}
          />
        ), "(optional)")}
        {field("place_name", "Place", (d) => (
          <input
            id="place_name"
            name="place_name"
            type="text"
            maxlength={200}
            value={values.place_name}
            aria-describedby={d}
            aria-invalid={errors.place_name ? "true" : undefined}
          />
        ))}
        {field("place_address", "Address", (d) => (
          <input
            id="place_address"
            name="place_address"
            type="text"
            maxlength={500}
            value={values.place_address}
            aria-describedby={d}
            aria-invalid={errors.place_address ? "true" : undefined}
          />
        ))}
        {field(
          "online_link",
          "Online link",
          (d) => (
            <input
              id="online_link"
              name="online_link"
              type="url"
              value={values.online_link}
              aria-describedby={d}
              aria-invalid={errors.online_link ? "true" : undefined}
            />
          ),
          "(a place, an online link, or both)",
        )}
        {field("tags", "Tags", (d) => (
          <input
            id="tags"
            name="tags"
            type="text"
            value={values.tags}
            aria-describedby={d}
            aria-invalid={errors.tags ? "true" : undefined}
          />
        ), "(separated by commas)")}
        {field("description", "Description", (d) => (
          <textarea
            id="description"
            name="description"
            aria-describedby={d}
            aria-invalid={errors.description ? "true" : undefined}
          >
            {values.description}
          </textarea>
        ), "(blank lines between paragraphs; links become clickable)")}
        <div class="actions">
          <button type="submit" class="approve">Submit</button>
        </div>
      </form>
    </Layout>
  );
}

/** What follows a submission that waits for confirmation. */
export function SubmittedView(
  props: { nonce: string; instanceName: string; title: string },
) {
  return (
    <Layout title={`Thank you · ${props.instanceName}`} nonce={props.nonce}>
      <p class="muted">{props.instanceName}</p>
      <h1>Thank you</h1>
      <p role="status">
        “{props.title}” was received. It is published once an editor has
        confirmed it.
      </p>
      <p>
        <a href="/submit">Submit another event</a> · <a href="/">Home</a>
      </p>
    </Layout>
  );
}
