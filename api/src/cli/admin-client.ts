import { Readable } from "node:stream";
import { Agent, FormData, request } from "undici";
import type { Config } from "../config.ts";

/** A command that talked to a server and could not do its work: the message says what to do. */
export class RemoteError extends Error {}

/** Longest wait for an answer's first bytes (an apply of a large pool takes a while). */
const TIMEOUT_MS = 10 * 60_000;

export interface Answer<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** The `error` of an api.md error body, when the answer is one. */
export const errorOf = (a: Answer) =>
  (a.body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;

/** The server a command talks to: `--url`, else this machine's server on PORT. */
export const serverUrl = (url: string | undefined, config: Config) => {
  const base = url ?? `http://127.0.0.1:${config.port}`;
  if (!/^https?:\/\/[^/]/.test(base))
    throw new RemoteError(`--url must be a server's address, such as http://127.0.0.1:8080 (got "${base}").`);
  return base.replace(/\/+$/, "");
};

/**
 * The CLI's admin session on a server (`feedlab study`, `feedlab package`): signs in with the
 * deployment's admin credentials (FEEDLAB_ADMIN_USERNAME / FEEDLAB_ADMIN_PASSWORD) and keeps the
 * cookie, over one pooled keep-alive connection.
 */
export class AdminClient {
  private readonly dispatcher = new Agent({ connections: 1 });
  private cookie = "";
  readonly url: string;

  private constructor(url: string) {
    this.url = url;
  }

  static async signIn(url: string, config: Config): Promise<AdminClient> {
    if (config.adminPassword === null)
      throw new RemoteError(
        `Set FEEDLAB_ADMIN_USERNAME and FEEDLAB_ADMIN_PASSWORD to an admin of ${url}: the command signs in as them.`,
      );
    const client = new AdminClient(url);
    const r = await client.call("POST", "/api/v1/auth/login", {
      username: config.adminUsername,
      password: config.adminPassword,
    });
    if (r.status !== 200) {
      await client.close();
      throw new RemoteError(
        `Signing in to ${url} as "${config.adminUsername}" failed (${errorOf(r)?.message ?? `HTTP ${r.status}`}). Set FEEDLAB_ADMIN_USERNAME and FEEDLAB_ADMIN_PASSWORD to an admin of that server.`,
      );
    }
    return client;
  }

  private async send(method: "GET" | "POST", path: string, body?: unknown) {
    const form = body instanceof FormData;
    try {
      const res = await request(`${this.url}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          accept: "application/json",
          ...(this.cookie === "" ? {} : { cookie: this.cookie }),
          ...(body === undefined || form ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : form ? body : JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      const setCookie = res.headers["set-cookie"];
      if (setCookie)
        this.cookie = (Array.isArray(setCookie) ? setCookie : [setCookie])
          .map((c) => c.split(";")[0])
          .join("; ");
      return res;
    } catch (e) {
      throw new RemoteError(
        `${this.url} did not answer ${method} ${path}: ${(e as Error).message}. Is the server running? Set --url.`,
      );
    }
  }

  /** A request whose answer is JSON (or text); a FormData body goes as multipart/form-data. */
  async call<T = unknown>(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer<T>> {
    const res = await this.send(method, path, body);
    const text = await res.body.text();
    let parsed: unknown = text;
    if (/json/.test(String(res.headers["content-type"] ?? "")) && text !== "") parsed = JSON.parse(text);
    return { status: res.statusCode, body: parsed as T, headers: res.headers };
  }

  /** A GET whose answer is streamed (a zip); an error answer is thrown with its message. */
  async stream(path: string): Promise<Readable> {
    const res = await this.send("GET", path);
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      let message = `HTTP ${res.statusCode}`;
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {}
      throw new RemoteError(`GET ${path}: ${message}`);
    }
    return Readable.from(res.body);
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
