import { randomUUID } from "node:crypto";
import type { Db } from "@feedlab/sql";
import pg from "pg";
import type { Logger } from "pino";

/**
 * A change of state that in-process caches hold, announced to every API process:
 * - `recommender`: a registry record was registered, updated or removed (the key's instance is rebuilt);
 * - `group`: a group's algorithm_config or recommender_params changed;
 * - `pool`: an experiment's video pool was replaced;
 * - `videos`: a video's metadata changed or a video was deleted (every cached pool may hold it);
 * - `template`: a UI template's version grew (events stamp `<id>@<version>`);
 * - `model`: the trainer stored new output for an experiment (recommendation_cache, item_similarity);
 * - `resync`: notifications may have been missed (the listener reconnected): drop everything cached.
 */
type Change =
  | { readonly type: "recommender"; readonly key: string }
  | { readonly type: "group"; readonly group_id: string }
  | { readonly type: "pool"; readonly experiment_id: string }
  | { readonly type: "videos" }
  | { readonly type: "template"; readonly template_id: string }
  | { readonly type: "model"; readonly experiment_id: string }
  | { readonly type: "participants_erased" }
  | { readonly type: "resync" };

type ChangeListener = (change: Change) => void;

/**
 * Change propagation. `publish` applies a change to this process's listeners at once (the worker
 * that handled the request sees it before it answers) and announces it to the other processes, which
 * see it within milliseconds (PostgreSQL LISTEN/NOTIFY). Listeners must be idempotent and cheap:
 * they drop cache entries; the next request reloads them.
 */
export interface ChangeBus {
  publish(change: Change): Promise<void>;
  subscribe(listener: ChangeListener): () => void;
  start(): Promise<void>;
  /** Idempotent. */
  stop(): Promise<void>;
}

/** The PostgreSQL notification channel. */
const CHANGES_CHANNEL = "feedlab_changes";

function fanOut(listeners: Set<ChangeListener>, change: Change, log?: Logger) {
  for (const listener of listeners) {
    try {
      listener(change);
    } catch (err) {
      log?.error({ err, change }, "change listener failed");
    }
  }
}

/** One process (the embedded database): changes go to this process's listeners only. */
export function createLocalChangeBus(): ChangeBus {
  const listeners = new Set<ChangeListener>();
  return {
    publish: async (change) => fanOut(listeners, change),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: async () => {},
    stop: async () => {},
  };
}

export interface PgChangeBusOptions {
  /** Publishes through the pool (`select pg_notify(...)`). */
  readonly db: Db;
  /** The LISTEN side holds a dedicated connection of its own (a pooled one would be handed back). */
  readonly connectionString: string;
  readonly log: Logger;
  /** Backoff ceiling when the listening connection is lost (default 5 s). */
  readonly maxBackoffMs?: number;
}

/**
 * Several API processes on one PostgreSQL database. Each process listens on `feedlab_changes` with a
 * dedicated client; a lost connection is re-established with backoff, and on reconnection listeners
 * get `resync` because notifications sent meanwhile are gone. A process skips its own notifications
 * (it applied them when publishing).
 */
export function createPgChangeBus(options: PgChangeBusOptions): ChangeBus {
  const { db, connectionString, log } = options;
  const maxBackoffMs = options.maxBackoffMs ?? 5000;
  const origin = randomUUID();
  const listeners = new Set<ChangeListener>();
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let backoff = 100;

  function onNotification(msg: pg.Notification) {
    if (msg.channel !== CHANGES_CHANNEL || !msg.payload) return;
    let parsed: { origin?: string; change?: Change };
    try {
      parsed = JSON.parse(msg.payload);
    } catch {
      log.warn({ payload: msg.payload.slice(0, 200) }, "unreadable change notification ignored");
      return;
    }
    if (parsed.origin === origin || !parsed.change) return;
    fanOut(listeners, parsed.change, log);
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString, application_name: "feedlab-changes" });
    c.on("notification", onNotification);
    c.on("error", (err) => {
      log.warn({ err: err.message }, "change listener connection failed; reconnecting");
      lost(c);
    });
    c.on("end", () => lost(c));
    await c.connect();
    await c.query(`LISTEN ${CHANGES_CHANNEL}`);
    client = c;
    backoff = 100;
  }

  function lost(c: pg.Client) {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {});
    schedule();
  }

  function schedule() {
    if (stopped || retry) return;
    retry = setTimeout(async () => {
      retry = null;
      try {
        await connect();
        // Anything sent while we were away is lost: drop every cached state.
        fanOut(listeners, { type: "resync" }, log);
      } catch (err) {
        log.warn({ err: (err as Error).message, retry_ms: backoff }, "change listener reconnect failed");
        backoff = Math.min(maxBackoffMs, backoff * 2);
        schedule();
      }
    }, backoff);
    retry.unref();
  }

  return {
    async publish(change) {
      fanOut(listeners, change, log);
      try {
        await db.raw("select pg_notify(?, ?)", [CHANGES_CHANNEL, JSON.stringify({ origin, change })]);
      } catch (err) {
        // The change is stored; other processes pick it up at their next lookup miss or cache expiry.
        log.warn({ err: (err as Error).message, change }, "change notification not sent");
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      stopped = false;
      await connect();
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
