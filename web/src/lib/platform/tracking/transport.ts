import { isRetryableStatus } from "@feedlab/schemas/events/retry.ts";
import type { Batch, Outbox } from "./outbox.ts";

/** `POST /api/v1/events` (api.md). */
const EVENTS_ENDPOINT = "/api/v1/events";
/** Browsers cap the bodies of keepalive requests and beacons in flight at 64 KiB per document. */
const KEEPALIVE_LIMIT_BYTES = 60 * 1024;

/** Backoff of failed sends: doubling from `baseMs` up to `maxMs`, with jitter. */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}
const DEFAULT_RETRY: RetryPolicy = { baseMs: 1000, maxMs: 30_000 };

export interface TransportDeps {
  readonly outbox: Outbox;
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** `navigator.sendBeacon`, where the browser has it. */
  readonly sendBeacon?: (url: string, data: Blob) => boolean;
  readonly now: () => number;
  /** Jitter source in [0, 1). */
  readonly random?: () => number;
  readonly retry?: RetryPolicy;
  readonly endpoint?: string;
}

/** Counters of what happened to batches, for diagnostics and tests. */
export interface TransportStats {
  /** Batches the server acknowledged (202). */
  sent: number;
  /** Failed attempts that will be retried (network error, 408, 425, 429, 5xx). */
  retries: number;
  /** Batches the server refused as a whole (other 4xx): retrying cannot help, so they are dropped. */
  droppedBatches: number;
  /** Events the server refused one by one inside an acknowledged batch (`rejected` of the 202). */
  rejectedEvents: number;
  /** Batches handed to `navigator.sendBeacon`. */
  beacons: number;
}

type Outcome = { kind: "ok" } | { kind: "drop" } | { kind: "retry"; afterMs: number | null };

function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const bodyOf = (batch: Batch) => JSON.stringify({ session_id: batch.sessionId, events: batch.events });

/**
 * Delivers batches from the outbox, one request at a time in the order they were formed, so the
 * server sees a session's events roughly in order. A failure that a retry can help (no network,
 * 408/425/429/5xx) keeps the batch and backs off, honouring `Retry-After`; `retryNow()` (the browser
 * came back online) cuts the wait short. A batch the server refuses as a whole (other 4xx) is dropped
 * and counted. Each event keeps its `event_id` across retries, and the server stores a repeated id
 * once, so a batch that was delivered but not acknowledged costs nothing when resent.
 */
export class Transport {
  readonly stats: TransportStats = { sent: 0, retries: 0, droppedBatches: 0, rejectedEvents: 0, beacons: 0 };
  /** The `position` of the latest acknowledged batch: pass it as `after` to read your own writes. */
  position: string | null = null;
  readonly #acknowledged = new Set<(batch: Batch, position: string | null) => void>();

  readonly #deps: TransportDeps;
  readonly #retry: RetryPolicy;
  readonly #endpoint: string;
  #inFlight: Batch | null = null;
  #waitTimer: ReturnType<typeof setTimeout> | null = null;
  #idleWaiters: (() => void)[] = [];
  #disposed = false;

  /** Calls `listener` after each acknowledged batch; returns the function that stops it. */
  onAcknowledged(listener: (batch: Batch, position: string | null) => void): () => void {
    this.#acknowledged.add(listener);
    return () => this.#acknowledged.delete(listener);
  }

  constructor(deps: TransportDeps) {
    this.#deps = deps;
    this.#retry = deps.retry ?? DEFAULT_RETRY;
    this.#endpoint = deps.endpoint ?? EVENTS_ENDPOINT;
  }

  /** Queues a batch durably and starts sending. */
  enqueue(batch: Batch): void {
    this.#deps.outbox.add(batch);
    this.#pump();
  }

  /** Queues a batch durably without sending it now (the unload path beacons it instead). */
  hold(batch: Batch): void {
    this.#deps.outbox.add(batch);
  }

  /** Sends what the outbox holds (on start, after a reload). */
  start(): void {
    this.#pump();
  }

  /** Ends a backoff wait early (the browser reports it is online again). */
  retryNow(): void {
    if (this.#waitTimer !== null) {
      clearTimeout(this.#waitTimer);
      this.#waitTimer = null;
    }
    this.#pump();
  }

  /** True while a backoff wait is running. */
  get backingOff(): boolean {
    return this.#waitTimer !== null;
  }

  /**
   * Resolves once nothing is waiting to be sent (every batch acknowledged or dropped), or after
   * `timeoutMs`, whichever comes first. Never rejects.
   */
  idle(timeoutMs: number): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#idleWaiters.push(done);
    });
  }

  /**
   * Page unload: hands every batch not yet beaconed to `navigator.sendBeacon` (a `text/plain` body,
   * which the endpoint accepts), which the browser delivers after the page is gone. The batches stay
   * in the outbox, marked, and are sent again by the next page load of this browser (stored once).
   * Returns how many batches the browser accepted.
   */
  beacon(): number {
    const send = this.#deps.sendBeacon;
    let accepted = 0;
    for (const batch of this.#deps.outbox.all()) {
      if (batch.beaconed) continue;
      const blob = new Blob([bodyOf(batch)], { type: "text/plain;charset=UTF-8" });
      let ok = false;
      try {
        ok = send ? send(this.#endpoint, blob) : false;
      } catch {
        ok = false;
      }
      if (!ok) {
        // No beacon (or over its quota): a keepalive request may still go; the outbox keeps the batch.
        void this.#deps
          .fetch(this.#endpoint, {
            method: "POST",
            headers: { "content-type": "text/plain;charset=UTF-8" },
            body: blob,
            keepalive: blob.size <= KEEPALIVE_LIMIT_BYTES,
            credentials: "same-origin",
          })
          .catch(() => undefined);
        continue;
      }
      batch.beaconed = true;
      this.#deps.outbox.update(batch);
      this.stats.beacons++;
      accepted++;
    }
    return accepted;
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#waitTimer !== null) clearTimeout(this.#waitTimer);
    this.#waitTimer = null;
    this.#releaseIdle();
  }

  #next(): Batch | undefined {
    return this.#deps.outbox.all().find((b) => !b.beaconed);
  }

  #isIdle(): boolean {
    return this.#inFlight === null && this.#next() === undefined;
  }

  #releaseIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }

  #pump(): void {
    if (this.#disposed || this.#inFlight !== null || this.#waitTimer !== null) return;
    const batch = this.#next();
    if (!batch) {
      this.#releaseIdle();
      return;
    }
    this.#inFlight = batch;
    void this.#send(batch).then((outcome) => {
      this.#inFlight = null;
      if (outcome.kind === "retry") {
        batch.attempts++;
        this.#deps.outbox.update(batch);
        this.stats.retries++;
        const exp = Math.min(this.#retry.maxMs, this.#retry.baseMs * 2 ** (batch.attempts - 1));
        const jittered = exp * (0.5 + 0.5 * (this.#deps.random ?? Math.random)());
        const delay = outcome.afterMs ?? jittered;
        if (!this.#disposed) {
          this.#waitTimer = setTimeout(() => {
            this.#waitTimer = null;
            this.#pump();
          }, delay);
        }
        return;
      }
      this.#deps.outbox.remove(batch);
      this.#pump();
    });
  }

  async #send(batch: Batch): Promise<Outcome> {
    const body = bodyOf(batch);
    let response: Response;
    try {
      response = await this.#deps.fetch(this.#endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        credentials: "same-origin",
        // Lets the request finish when the page navigates away meanwhile (within the browser's quota).
        keepalive: body.length <= KEEPALIVE_LIMIT_BYTES,
      });
    } catch {
      return { kind: "retry", afterMs: null };
    }
    if (response.status >= 200 && response.status < 300) {
      let position: string | null = null;
      try {
        const reply = (await response.json()) as {
          accepted?: unknown;
          position?: unknown;
          rejected?: unknown;
        };
        // A batch with nothing accepted wrote nothing: the last real position stays the one to read after.
        if (typeof reply.position === "string" && reply.accepted !== 0) position = reply.position;
        if (Array.isArray(reply.rejected) && reply.rejected.length > 0) {
          this.stats.rejectedEvents += reply.rejected.length;
          console.warn("feedlab: the server rejected events", reply.rejected);
        }
      } catch {
        // An acknowledgement without a readable body is still an acknowledgement.
      }
      if (position !== null) this.position = position;
      this.stats.sent++;
      for (const listener of [...this.#acknowledged]) listener(batch, position);
      return { kind: "ok" };
    }
    if (isRetryableStatus(response.status)) {
      return { kind: "retry", afterMs: retryAfterMs(response.headers.get("retry-after"), this.#deps.now()) };
    }
    this.stats.droppedBatches++;
    console.warn(`feedlab: a batch of ${batch.events.length} events was refused (${response.status})`);
    return { kind: "drop" };
  }
}
