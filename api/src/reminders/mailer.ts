import { createTransport } from "nodemailer";

/** A message as the reminders send it. */
interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The unsubscribe link, as `List-Unsubscribe` (with RFC 8058's one-click POST). */
  readonly unsubscribeUrl: string;
}

/** What sending ended in: accepted by the SMTP server, refused or unreached (safe to retry), or lost. */
type SendOutcome = "accepted" | "retry" | "lost";

export interface Mailer {
  send(message: MailMessage): Promise<{ outcome: SendOutcome; error?: string }>;
  close(): void;
}

/**
 * Whether an error means the message surely did not reach the server's queue: the server answered
 * with an error (a reply code), or the connection, its TLS or the login failed before the message
 * was sent. A connection lost while the message was being sent is "lost": it is never sent again.
 */
function retryable(e: { responseCode?: number; code?: string; command?: string }): boolean {
  if (typeof e.responseCode === "number") return true;
  return (
    e.command === "CONN" ||
    ["ECONNECTION", "EDNS", "ETLS", "EAUTH", "ECONNREFUSED", "ENOTFOUND", "EENVELOPE"].includes(e.code ?? "")
  );
}

/**
 * The mail server of `FEEDLAB_SMTP_URL` through nodemailer (the SMTP client, STARTTLS when the server
 * offers it, authentication from the URL's user and password), one connection pool per process.
 */
export function createMailer(smtpUrl: string, from: string): Mailer {
  const transport = createTransport(`${smtpUrl}${smtpUrl.includes("?") ? "&" : "?"}pool=true`, { from });
  return {
    async send(m) {
      try {
        await transport.sendMail({
          to: m.to,
          subject: m.subject,
          text: m.text,
          list: { unsubscribe: m.unsubscribeUrl },
          headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
        });
        return { outcome: "accepted" };
      } catch (e) {
        const err = e as { responseCode?: number; code?: string; command?: string; message?: string };
        // The reason without the server's address or credentials: its code and reply.
        const error = [err.code, err.responseCode, err.command].filter((x) => x !== undefined).join(" ");
        return { outcome: retryable(err) ? "retry" : "lost", error: error || "failed" };
      }
    },
    close: () => transport.close(),
  };
}
