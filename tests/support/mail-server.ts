/**
 * A real SMTP server on loopback (npm `smtp-server`) for the mail tests,
 * each message it accepts parsed with a real MIME parser (npm `mailparser`).
 * It can be told to answer with an error, to be slow, or be stopped (down).
 */
// @ts-types="npm:@types/smtp-server@3.5.13"
import { SMTPServer } from "smtp-server";
// @ts-types="npm:@types/mailparser@3.9.0"
import { type ParsedMail, simpleParser } from "mailparser";
import { freePort } from "../helpers.ts";

/** A message the server accepted: the envelope and the parsed MIME message. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

/** How the server answers DATA: accept, refuse (4xx/5xx), or accept slowly. */
export type SmtpBehaviour =
  | { kind: "accept" }
  | { kind: "refuse"; code: number }
  | { kind: "slow"; ms: number };

/** The running server. */
export interface TestSmtpServer {
  port: number;
  url: string;
  received: ReceivedMail[];
  /** Answers of DATA so far (accepted or refused). */
  attempts: number;
  /** The most connections open at once so far. */
  maxConnections: number;
  behaviour: SmtpBehaviour;
  /** Resolves with the next accepted message (or the ones already there). */
  next(count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
  /** Starts again on the same port (after stop: the server was down). */
  restart(): Promise<void>;
}

/** Starts an SMTP server on 127.0.0.1 that wants `user`/`pass` (PLAIN or LOGIN, no TLS). */
export async function startSmtpServer(
  credentials = { user: "quando", pass: "s3cret" },
): Promise<TestSmtpServer> {
  const port = freePort();
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  let server: SMTPServer;
  const state: TestSmtpServer = {
    port,
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${port}`,
    received,
    attempts: 0,
    maxConnections: 0,
    behaviour: { kind: "accept" },
    async next(count = 1, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `expected ${count} message(s), got ${received.length}`,
          );
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
    restart: () => listen(),
  };
  let open = 0;
  const listen = () => {
    server = new SMTPServer({
      onConnect(_session, callback) {
        open++;
        state.maxConnections = Math.max(state.maxConnections, open);
        callback();
      },
      onClose() {
        open--;
      },
      // Plain text on loopback: no certificate to trust in tests.
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (
          auth.username === credentials.user &&
          auth.password === credentials.pass
        ) {
          callback(null, { user: auth.username });
        } else {
          callback(new Error("Invalid username or password"));
        }
      },
      onData(stream, session, callback) {
        const chunks: Uint8Array[] = [];
        stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
        stream.on("end", async () => {
          state.attempts++;
          const behaviour = state.behaviour;
          if (behaviour.kind === "refuse") {
            const error = new Error(
              behaviour.code < 500 ? "Try again later" : "Message refused",
            ) as Error & { responseCode: number };
            error.responseCode = behaviour.code;
            callback(error);
            return;
          }
          if (behaviour.kind === "slow") {
            await new Promise((r) => setTimeout(r, behaviour.ms));
          }
          const raw = new TextDecoder().decode(
            new Uint8Array(chunks.flatMap((c) => [...c])),
          );
          received.push({
            from: session.envelope.mailFrom
              ? session.envelope.mailFrom.address
              : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw,
            parsed: await simpleParser(raw),
          });
          for (const wake of waiters.splice(0)) wake();
          callback();
        });
      },
    });
    return new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  };
  await listen();
  return state;
}

/** The first link to this instance in a message's text. */
export function linkIn(mail: ReceivedMail, path: string): string {
  const text = mail.parsed.text ?? "";
  const match = new RegExp(`https?://[^\\s]+${path}[^\\s]*`).exec(text);
  if (!match) throw new Error(`no ${path} link in: ${text}`);
  return match[0];
}
