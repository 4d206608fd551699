/**
 * The SMTP transport, over nodemailer (its SMTP client and MIME encoding).
 * Only main.ts imports this module: nodemailer needs Node's sockets, which
 * do not bundle for Workers (tests/worker.test.ts checks it stays out).
 */
// @ts-types="npm:@types/nodemailer@8.0.2"
import nodemailer from "nodemailer";
import { MailSendError, type MailTransport } from "./transport.ts";

/**
 * A transport to the server of `url` (`smtp://user:pass@host:587`, STARTTLS
 * whenever the server offers it; `smtps://…:465`, TLS from the start).
 * Every step has a time limit, so a slow server fails the attempt (which is
 * retried later) instead of holding it.
 */
export function createSmtpMailTransport(
  url: string,
  options: { timeoutMs?: number } = {},
): MailTransport {
  const timeout = options.timeoutMs ?? 30_000;
  const transporter = nodemailer.createTransport(url, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    dnsTimeout: timeout,
  });
  return {
    kind: "smtp",
    async send(mail) {
      try {
        await transporter.sendMail({
          from: mail.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          messageId: mail.messageId,
          date: mail.date,
          headers: mail.headers,
          // The message is refused rather than sent with a header split.
          disableFileAccess: true,
          disableUrlAccess: true,
        });
      } catch (error) {
        const e = error as {
          response?: string;
          code?: string;
          message?: string;
        };
        throw new MailSendError(
          (e.response ?? e.message ?? String(error)).slice(0, 300),
        );
      }
    },
  };
}
