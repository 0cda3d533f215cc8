import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A message the server accepted, parsed (mailparser), with what the session knew of it. */
interface ReceivedMail {
  readonly to: string[];
  readonly from: string;
  readonly subject: string;
  readonly text: string;
  readonly headers: ParsedMail["headers"];
  /** The `List-Unsubscribe` header's link (between its angle brackets), if any. */
  readonly listUnsubscribe: string | undefined;
  /** The connection was upgraded with STARTTLS before the message. */
  readonly secure: boolean;
  /** The client logged in with the server's user and password. */
  readonly user: string | undefined;
}

export interface TestSmtp {
  /** `FEEDLAB_SMTP_URL` for this server (its self-signed certificate accepted). */
  readonly url: string;
  readonly received: ReceivedMail[];
  /** The next `n` messages are refused with 451 (a temporary failure) after their data arrives. */
  refuseNext(n: number): void;
  /** Resolves once `count` messages were accepted in all, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const USER = "feedlab";
const PASSWORD = "smtp-test-password";

/**
 * A real SMTP server in this process (the npm `smtp-server`): it offers STARTTLS with its built-in
 * self-signed certificate, asks for a login, and keeps every message it accepts, parsed, for tests to
 * read. It can refuse messages with a temporary failure to test retries.
 */
export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  let refusals = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = new SMTPServer({
    authMethods: ["PLAIN", "LOGIN"],
    // Login only over TLS is the server's default; the client upgrades with STARTTLS first.
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (refusals > 0) {
          refusals--;
          const e = new Error("Try again later") as Error & { responseCode: number };
          e.responseCode = 451;
          callback(e);
          return;
        }
        void simpleParser(Buffer.concat(chunks)).then((mail) => {
          received.push({
            to: session.envelope.rcptTo.map((r) => r.address),
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            headers: mail.headers,
            listUnsubscribe: /<([^>]+)>/.exec(
              mail.headerLines.find((h) => h.key === "list-unsubscribe")?.line ?? "",
            )?.[1],
            secure: session.secure,
            user: typeof session.user === "string" ? session.user : undefined,
          });
          for (const w of waiters.filter((w) => received.length >= w.count)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
          callback();
        }, callback);
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}?tls.rejectUnauthorized=false`,
    received,
    refuseNext: (n) => {
      refusals = n;
    },
    waitFor(count, timeoutMs = 30_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${received.length} of ${count} messages after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
