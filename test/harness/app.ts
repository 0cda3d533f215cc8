import type { Server } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import type { buildConnector } from "undici";
import { openRuntime, type Runtime } from "../../api/src/app/runtime.ts";
import { buildApp, closeServer, listen } from "../../api/src/app/server.ts";
import { loadConfig } from "../../api/src/config.ts";
import { createLogger } from "../../api/src/logger.ts";
import { type Backend, createTestStorage, type TestStorage } from "./storage.ts";

export { BACKENDS, type Backend, createTestStorage, EVENT_BACKENDS, type TestStorage } from "./storage.ts";

export interface TestApp {
  readonly url: string;
  readonly runtime: Runtime;
  /** A new HTTP client with its own cookie jar. */
  client(): Client;
  /** A client signed in as the admin (an account owner). */
  admin(): Promise<Client>;
  /**
   * A new account of the role given (default researcher), made by the admin, and a client signed in
   * as it; its password is ACCOUNT_PASSWORD.
   */
  account(username: string, role?: "owner" | "researcher"): Promise<Client>;
  /**
   * A client holding an admin session issued by the service itself, for settings whose sign-in this
   * client cannot make (an https public URL reached over plain HTTP): the sign-in is what they test.
   */
  adminBySession(): Promise<Client>;
  /** Stops the server and keeps the database (to start another app on it, as after a restart). */
  restart(): Promise<TestApp>;
  stop(): Promise<void>;
}

export const ADMIN = { username: "admin", password: "correct-horse-battery" } as const;
const ACCOUNT_PASSWORD = "staple-lantern-orbit";

export interface AppOptions {
  /** Seed the demo study (default: no). */
  readonly demo?: boolean;
  readonly env?: Record<string, string>;
  readonly webBuildDir?: string;
  /** Run the projector in this process (default: yes). */
  readonly projector?: boolean;
  /** DNS lookup of external recommender calls (to simulate a DNS failure without DNS traffic). */
  readonly lookup?: LookupFunction;
  /** Opens external recommender calls' connections once checked (`recordConnections` records them). */
  readonly connector?: buildConnector.connector;
}

/**
 * Starts the API in this process on a fresh database of the given backend (a copy of the run's
 * migrated one), on a free port, with the first admin created. The demo study is seeded only when
 * asked.
 */
export async function startTestApp(backend: Backend, options: AppOptions = {}): Promise<TestApp> {
  return startTestAppOn(await createTestStorage(backend, { migrated: true }), backend, options);
}

/** Starts the API on a database made beforehand (an older release's, say); `stop` drops it. */
export async function startTestAppOn(
  storage: TestStorage,
  backend: Backend,
  options: AppOptions = {},
): Promise<TestApp> {
  return boot(storage, backend, options);
}

async function boot(storage: TestStorage, backend: Backend, options: AppOptions): Promise<TestApp> {
  const config = loadConfig({
    PORT: "0",
    FEEDLAB_ADMIN_USERNAME: ADMIN.username,
    FEEDLAB_ADMIN_PASSWORD: ADMIN.password,
    FEEDLAB_DEMO: options.demo ? "1" : "0",
    FEEDLAB_LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    // Tests join many participants from 127.0.0.1; the limit has its own test.
    FEEDLAB_JOIN_RATE_LIMIT: "0",
    ...storage.env,
    ...options.env,
  });
  const runtime = await openRuntime(config, createLogger(config.logLevel), {
    ...(options.lookup ? { lookup: options.lookup } : {}),
    ...(options.connector ? { connector: options.connector } : {}),
  });
  if (options.projector !== false) await runtime.startProjector();
  const { ensureFirstAdmin } = await import("../../api/src/auth/first-admin.ts");
  await ensureFirstAdmin(runtime.services.auth, ADMIN.username, ADMIN.password);
  if (options.demo) {
    const { seedDemo } = await import("../../api/src/demo/seed.ts");
    await seedDemo({ db: runtime.db, log: runtime.log, ...runtime.services });
  }
  const server: Server = await listen(
    buildApp(runtime, { webBuildDir: options.webBuildDir }),
    "127.0.0.1",
    0,
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  runtime.services.scheduleKeeper.setPublicUrl(url);
  const shutdown = async () => {
    await closeServer(server, 2000);
    await runtime.close();
  };
  const app: TestApp = {
    url,
    runtime,
    client: () => new Client(url),
    admin: async () => {
      const c = new Client(url);
      const r = await c.post("/api/v1/auth/login", ADMIN);
      if (r.status !== 200) throw new Error(`admin login failed: ${r.status} ${JSON.stringify(r.body)}`);
      return c;
    },
    account: async (username, role = "researcher") => {
      const owner = await app.admin();
      const made = await owner.post("/api/v1/admin/admins", { username, password: ACCOUNT_PASSWORD, role });
      if (made.status !== 201) throw new Error(`account ${username}: ${made.status} ${made.text}`);
      const c = new Client(url);
      const r = await c.post("/api/v1/auth/login", { username, password: ACCOUNT_PASSWORD });
      if (r.status !== 200) throw new Error(`login of ${username} failed: ${r.status} ${r.text}`);
      return c;
    },
    adminBySession: async () => {
      const principal = await runtime.services.auth.verifyAdmin(ADMIN.username, ADMIN.password);
      if (!principal) throw new Error("the test admin is missing");
      const c = new Client(url);
      c.cookies.set(
        "feedlab_admin",
        (await runtime.services.auth.issueAdminSession(principal.adminId)).token,
      );
      return c;
    },
    restart: async () => {
      await shutdown();
      return boot(storage, backend, options);
    },
    stop: async () => {
      await shutdown();
      await storage.cleanup();
    },
  };
  return app;
}

export interface Reply<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
  readonly text: string;
}

/** A small HTTP client with a cookie jar, speaking JSON unless told otherwise. */
export class Client {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  /** Sent with every request (what a reverse proxy adds, say). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(base: string, headers: Record<string, string> = {}) {
    this.base = base;
    this.headers = headers;
  }

  async request<T = unknown>(
    method: string,
    pathname: string,
    options: {
      json?: unknown;
      body?: string;
      contentType?: string;
      headers?: Record<string, string>;
      /** A multipart form (fetch sets its content type). */
      form?: FormData;
    } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...this.headers, ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers["content-type"] = "application/json";
    } else if (options.body !== undefined) {
      body = options.body;
      headers["content-type"] = options.contentType ?? "application/json";
    }
    const res = await fetch(this.base + pathname, { method, headers, body, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair?.indexOf("=") ?? -1;
      if (!pair || eq < 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    let parsed: unknown = text;
    if (/^application\/(.+\+)?json/.test(res.headers.get("content-type") ?? "") && text !== "")
      parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers, text };
  }

  /** GET of a binary body (a Parquet export), as bytes. */
  async download(
    pathname: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
    const headers: Record<string, string> = { ...this.headers, ...extraHeaders };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(this.base + pathname, { headers });
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }

  get = <T = unknown>(p: string) => this.request<T>("GET", p);
  post = <T = unknown>(p: string, json?: unknown) =>
    this.request<T>("POST", p, json === undefined ? {} : { json });
  put = <T = unknown>(p: string, json?: unknown) => this.request<T>("PUT", p, { json });
  patch = <T = unknown>(p: string, json?: unknown) => this.request<T>("PATCH", p, { json });
  del = <T = unknown>(p: string) => this.request<T>("DELETE", p);
}

/** The `error.code` of an api.md error body. */
export const codeOf = (r: Reply) => (r.body as { error?: { code?: string } })?.error?.code;

/** The `error.details` of an api.md error body. */
export const detailsOf = <T = Record<string, unknown>>(r: Reply) =>
  (r.body as { error?: { details?: T } })?.error?.details;
