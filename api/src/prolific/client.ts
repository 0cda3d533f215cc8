import { setTimeout as sleep } from "node:timers/promises";
import { Agent, type Dispatcher, request } from "undici";

/** A call to Prolific as Feedlab records it (the audit log, a dry run): never the token. */
export interface ProlificCallRecord {
  readonly method: "GET" | "POST";
  /** The path after the origin, with its query: `/api/v1/submissions/<id>/transition/`. */
  readonly path: string;
  readonly body?: unknown;
}

/**
 * A call Prolific did not accept. `sent`: whether the request may have reached Prolific (false only
 * when no connection was made): a call that is not safe to repeat (paying bonuses) is repeated only
 * when it was not sent.
 */
export class ProlificError extends Error {
  readonly status: number | null;
  readonly sent: boolean;
  readonly attempts: number;
  /** Prolific's answer, when it gave one. */
  readonly answer: unknown;
  constructor(
    message: string,
    o: { status: number | null; sent: boolean; attempts: number; answer?: unknown },
  ) {
    super(message);
    this.status = o.status;
    this.sent = o.sent;
    this.attempts = o.attempts;
    this.answer = o.answer;
  }

  /** Prolific could not be reached or failed on its side (a 5xx, 429): worth trying again later. */
  get transient(): boolean {
    return this.status === null || this.status === 429 || this.status >= 500;
  }
}

export interface ProlificAnswer<T> {
  readonly status: number;
  readonly json: T;
  /** Requests made, retries included. */
  readonly attempts: number;
}

export interface ProlificClientOptions {
  /** The API's origin (`FEEDLAB_PROLIFIC_URL`). */
  readonly url: string;
  /** Sent as `Authorization: Token <token>`; never logged or recorded. */
  readonly token: string;
  /** Tries of a call that is safe to repeat (default 4: the first and three retries). */
  readonly tries?: number;
  /** The first retry's wait; each next one doubles, with jitter (default 500 ms). */
  readonly backoffMs?: number;
  /** One request's budget (default 30 s). */
  readonly timeoutMs?: number;
  readonly dispatcher?: Dispatcher;
}

/** How a call may be repeated: `safe` on any transient failure, `once` only when it was never sent. */
export type Repeat = "safe" | "once";

const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** The error codes of an error and its causes. */
function codesOf(err: unknown): string[] {
  const out: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 6 && e && typeof e === "object"; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") out.push(code);
    const many = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(many)) for (const x of many) out.push(...codesOf(x));
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** Prolific's error answer in a sentence: its `error.detail` (text or fields' messages), else the status. */
function prolificMessage(status: number, answer: unknown): string {
  const detail = (answer as { error?: { detail?: unknown; title?: unknown } } | null)?.error?.detail;
  if (typeof detail === "string" && detail !== "") return detail;
  if (detail && typeof detail === "object")
    return Object.entries(detail as Record<string, unknown>)
      .map(([field, v]) => `${field}: ${Array.isArray(v) ? v.join(" ") : String(v)}`)
      .join("; ");
  const plain = (answer as { detail?: unknown } | null)?.detail;
  if (typeof plain === "string" && plain !== "") return plain;
  return `Prolific answered ${status}`;
}

/**
 * Prolific's API over HTTP (api.md "Prolific (wave 4)"; docs/prolific-api-notes.md): JSON in and out,
 * `Authorization: Token <token>`, a call that is safe to repeat retried with exponential backoff on a
 * transient failure (no answer, 429, 5xx), one that is not (paying bonuses) only when it never left.
 */
export function createProlificClient(options: ProlificClientOptions) {
  const tries = options.tries ?? 4;
  const backoffMs = options.backoffMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const dispatcher = options.dispatcher ?? new Agent({ connections: 8, keepAliveTimeout: 10_000 });

  async function once(
    call: ProlificCallRecord,
  ): Promise<{ status: number; json: unknown } | { error: unknown; sent: boolean }> {
    try {
      const r = await request(`${options.url}${call.path}`, {
        method: call.method,
        dispatcher,
        headers: {
          authorization: `Token ${options.token}`,
          accept: "application/json",
          ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await r.body.text();
      let json: unknown = null;
      try {
        json = text === "" ? null : JSON.parse(text);
      } catch {
        json = { detail: text.slice(0, 200) };
      }
      return { status: r.statusCode, json };
    } catch (error) {
      return { error, sent: !codesOf(error).some((c) => NOT_SENT_CODES.has(c)) };
    }
  }

  return {
    /** Sends a call; answers Prolific's 2xx answer, or throws ProlificError once the tries are spent. */
    async send<T = unknown>(call: ProlificCallRecord, repeat: Repeat = "safe"): Promise<ProlificAnswer<T>> {
      let attempts = 0;
      let sentOnce = false;
      for (;;) {
        attempts++;
        const got = await once(call);
        if ("status" in got && got.status >= 200 && got.status < 300)
          return { status: got.status, json: got.json as T, attempts };
        const failure: ProlificError =
          "status" in got
            ? new ProlificError(prolificMessage(got.status, got.json), {
                status: got.status,
                sent: true,
                attempts,
                answer: got.json,
              })
            : new ProlificError(`Prolific could not be reached (${codesOf(got.error)[0] ?? "no answer"})`, {
                status: null,
                sent: sentOnce || got.sent,
                attempts,
              });
        sentOnce ||= failure.sent;
        const again = failure.transient && attempts < tries && (repeat === "safe" || !failure.sent);
        if (!again) throw failure;
        await sleep(backoffMs * 2 ** (attempts - 1) * (0.75 + Math.random() * 0.5));
      }
    },
    async close(): Promise<void> {
      if (!options.dispatcher) await dispatcher.close();
    },
  };
}

export type ProlificClient = ReturnType<typeof createProlificClient>;

/** A submission as Prolific lists it (the fields Feedlab reads). */
export interface ListedSubmission {
  readonly id: string;
  readonly participant_id: string;
  readonly status: string;
}

/**
 * Every submission of a study, a page at a time (`limit`/`offset`, following `_links.next` and
 * `meta.count`: Prolific may answer fewer than asked per page). `attempts` counts the requests.
 */
export async function studySubmissions(
  client: ProlificClient,
  studyId: string,
): Promise<{ items: ListedSubmission[]; attempts: number }> {
  const items: ListedSubmission[] = [];
  let attempts = 0;
  for (;;) {
    const page = await client.send<{
      results?: ListedSubmission[];
      meta?: { count?: number };
      _links?: { next?: { href?: string | null } };
    }>({
      method: "GET",
      path: `/api/v1/studies/${encodeURIComponent(studyId)}/submissions/?limit=200&offset=${items.length}`,
    });
    attempts += page.attempts;
    const results = page.json?.results ?? [];
    items.push(...results);
    const count = page.json?.meta?.count;
    const more = count !== undefined ? items.length < count : Boolean(page.json?._links?.next?.href);
    if (results.length === 0 || !more) return { items, attempts };
  }
}
