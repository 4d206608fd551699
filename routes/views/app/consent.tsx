/** The OAuth consent page and the authorization error page. */
import { Layout } from "./shell.tsx";
import { Csrf } from "./components.tsx";

export interface ConsentPageProps {
  nonce: string;
  instanceName: string;
  appName: string;
  website: string | null;
  /** Each granted scope with its explanation. */
  scopes: { scope: string; description: string }[];
  redirectHost: string;
  /** The authorization request, echoed in hidden fields. */
  hidden: Record<string, string | null>;
  csrfToken: string;
  email?: string;
  error?: string;
}

/** The consent form: who asks, for what, where the answer goes; sign in and approve, or deny. */
export function ConsentPage(props: ConsentPageProps) {
  return (
    <Layout title={`Authorize ${props.appName}`} nonce={props.nonce}>
      <p class="muted">{props.instanceName}</p>
      <h1>
        <span id="app-name">{props.appName}</span> wants to use your account
      </h1>
      {props.error && <p class="error" role="alert">{props.error}</p>}
      <section class="card" aria-labelledby="scope-title">
        <h2 id="scope-title">
          If you approve, it may:
        </h2>
        <ul>
          {props.scopes.map((s) => (
            <li>
              {s.description}{" "}
              <span class="muted">
                (<code>{s.scope}</code>)
              </span>
            </li>
          ))}
        </ul>
        {props.website && (
          <p class="muted">
            Application website:{" "}
            <a href={props.website} rel="noopener noreferrer nofollow">
              {props.website}
            </a>
          </p>
        )}
        <p class="muted">
          You will then be sent back to <strong>{props.redirectHost}</strong>.
        </p>
      </section>
      <form method="post" action="/authorize">
        {Object.entries(props.hidden).map(([name, value]) =>
          value === null
            ? null
            : <input type="hidden" name={name} value={value} />
        )}
        <Csrf token={props.csrfToken} />
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
          <button class="approve" type="submit" name="decision" value="approve">
            Approve
          </button>
          <button
            class="deny"
            type="submit"
            name="decision"
            value="deny"
            formnovalidate
          >
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
}

/** Shown instead of redirecting when the client or redirect URI cannot be trusted. */
export function AuthorizeErrorPage(
  props: { nonce: string; error: string; description: string },
) {
  return (
    <Layout title="Authorization failed" nonce={props.nonce}>
      <h1>This authorization request cannot be completed</h1>
      <p class="error" role="alert">
        {props.description}
      </p>
      <p class="muted">
        Error code: <code id="error-code">{props.error}</code>
      </p>
      <p>
        Go back to the application you came from and try again, or tell its
        authors.
      </p>
    </Layout>
  );
}
