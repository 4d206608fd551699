/**
 * How a composed message leaves the instance. Everything above this (the
 * queue, retries, the messages) is the same whatever the transport: SMTP
 * (lib/mail/smtp.ts, built by main.ts only, since raw sockets do not bundle
 * for Workers) or the HTTP transport here, one JSON POST per message, which
 * runs everywhere (Deno Deploy, Workers).
 */

/** A message ready to send: one recipient, text and HTML, its own headers. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@host>`, chosen when the message is queued (the same on every retry). */
  messageId: string;
  date: Date;
  /** Further headers (List-Unsubscribe), names and values on one line each. */
  headers: Record<string, string>;
}

/** Sends one message; throws when it was not accepted (the queue retries). */
export interface MailTransport {
  /** "smtp" or "http", for the admin page and logs. */
  readonly kind: "smtp" | "http";
  send(mail: OutgoingMail): Promise<void>;
}

/** A refusal of the mail server, with what it said (for the admins' page). */
export class MailSendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MailSendError";
  }
}

/** How long one HTTP send may take before it counts as failed. */
const HTTP_TIMEOUT_MS = 30_000;

/**
 * The HTTP transport: each message is one POST of JSON to `url` with
 * `Authorization: Bearer <token>`:
 * `{from, to, subject, text, html, headers}` (`headers` holds Message-ID,
 * Date and List-Unsubscribe), the shape transactional-mail APIs such as
 * Resend take as is, and that a small relay can turn into anything else.
 * Any 2xx is sent; anything else (or no answer in 30 s) is retried.
 */
export function createHttpMailTransport(options: {
  url: string;
  token?: string;
  fetch?: typeof fetch;
}): MailTransport {
  const send = options.fetch ?? fetch;
  return {
    kind: "http",
    async send(mail) {
      const response = await send(options.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(options.token
            ? { Authorization: `Bearer ${options.token}` }
            : {}),
        },
        body: JSON.stringify({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          headers: {
            "Message-ID": mail.messageId,
            "Date": mail.date.toUTCString(),
            ...mail.headers,
          },
        }),
        // Never followed: a redirect is not a 2xx, so it counts as a failure
        // ("error" is not available on Workers).
        redirect: "manual",
        signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
      });
      // The body is read either way, so the connection can be reused.
      const answer = (await response.text()).slice(0, 200);
      if (!response.ok) {
        throw new MailSendError(
          `HTTP ${response.status} from the mail API: ${answer}`,
        );
      }
    },
  };
}
