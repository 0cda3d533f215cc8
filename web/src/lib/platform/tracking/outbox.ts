import type { WireEvent } from "@feedlab/schemas";
import type { BufferName } from "@feedlab/schemas/events/types.ts";
import type { KeyValueStore } from "./storage.ts";

/** An event as the tracker numbered it (`seq`: its place in the session), waiting in a batch. */
export type OutgoingEvent = WireEvent & { readonly seq: number };

/** What produced a batch: one of the three buffers, or the unload flush that sends them together. */
type BatchKind = BufferName | "unload";

/** One `POST /api/v1/events` body in waiting, with its bookkeeping. */
export interface Batch {
  readonly id: string;
  readonly sessionId: string;
  readonly kind: BatchKind;
  readonly events: readonly OutgoingEvent[];
  /** Client clock (ms) when the batch was formed. */
  readonly createdAt: number;
  /** Failed attempts so far. */
  attempts: number;
  /** Handed to `navigator.sendBeacon` in this document: delivery is likely but unconfirmed. */
  beaconed?: boolean;
}

interface Stored {
  readonly updatedAt: number;
  readonly batches: Batch[];
}

/** localStorage key prefix of the outboxes, one key per session id. */
export const OUTBOX_PREFIX = "feedlab.outbox.";
/** Another session's outbox is adopted only when it has not been written for this long (its tab is gone). */
export const ORPHAN_AFTER_MS = 30_000;
/** Batches older than this are dropped instead of sent (a participant who never came back). */
const MAX_BATCH_AGE_MS = 7 * 24 * 3600_000;

/**
 * Batches not yet acknowledged by the server, kept in localStorage (one key per session) so that a
 * reload, a crash or a network outage loses nothing: a batch is written before it is sent and removed
 * only when the server answers for it. On start the outbox also adopts the batches other sessions left
 * behind (a tab closed while offline); each keeps its own session id, and events keep their
 * `event_id`, so a batch sent twice is stored once.
 *
 * Memory is the working copy and storage the durable one. When storage is full, high-frequency
 * batches are left out of the durable copy first; the working copy still sends everything.
 */
export class Outbox {
  readonly #store: KeyValueStore;
  readonly #sessionId: string;
  readonly #now: () => number;
  /** Storage key -> batches, in send order. */
  readonly #byKey = new Map<string, Batch[]>();
  /** Storage key -> batches currently held in memory only (storage full or unavailable). */
  readonly #notDurable = new Map<string, number>();
  /** Batches dropped for age. */
  expired = 0;
  /** Discarded for good (the participant left the study): nothing is kept or stored any more. */
  #discarded = false;

  constructor(store: KeyValueStore, sessionId: string, now: () => number) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#now = now;
    this.#load(this.#keyOf(sessionId), true);
  }

  /** Takes over the outboxes of sessions whose tabs are gone. Returns how many batches it adopted. */
  adoptOrphans(): number {
    let adopted = 0;
    for (const key of this.#store.keys()) {
      if (!key.startsWith(OUTBOX_PREFIX) || this.#byKey.has(key)) continue;
      adopted += this.#load(key, false);
    }
    return adopted;
  }

  add(batch: Batch): void {
    if (this.#discarded) return;
    const key = this.#keyOf(batch.sessionId);
    const list = this.#byKey.get(key) ?? [];
    list.push(batch);
    this.#byKey.set(key, list);
    this.#save(key);
  }

  remove(batch: Batch): void {
    const key = this.#keyOf(batch.sessionId);
    const list = this.#byKey.get(key);
    if (!list) return;
    const index = list.indexOf(batch);
    if (index >= 0) list.splice(index, 1);
    this.#save(key);
  }

  /** Persists a changed batch (attempt count, beacon mark). */
  update(batch: Batch): void {
    this.#save(this.#keyOf(batch.sessionId));
  }

  /**
   * Forgets every waiting batch and its stored copy, and keeps nothing from now on: the participant
   * left the study and their data was erased.
   */
  discard(): void {
    this.#discarded = true;
    for (const key of this.#byKey.keys()) {
      try {
        this.#store.removeItem(key);
      } catch {
        // Nothing stored.
      }
    }
    this.#byKey.clear();
    this.#notDurable.clear();
  }

  /** All waiting batches: this session's first, then adopted ones, each in the order formed. */
  all(): Batch[] {
    const own = this.#byKey.get(this.#keyOf(this.#sessionId)) ?? [];
    const others = [...this.#byKey].filter(([k]) => k !== this.#keyOf(this.#sessionId)).flatMap(([, v]) => v);
    return [...own, ...others];
  }

  /** Batches currently held in memory only: a reload would lose them (storage full or unavailable). */
  get unpersisted(): number {
    let n = 0;
    for (const count of this.#notDurable.values()) n += count;
    return n;
  }

  get size(): number {
    let n = 0;
    for (const list of this.#byKey.values()) n += list.length;
    return n;
  }

  #keyOf(sessionId: string): string {
    return OUTBOX_PREFIX + sessionId;
  }

  #load(key: string, own: boolean): number {
    let stored: Stored | null = null;
    try {
      const raw = this.#store.getItem(key);
      stored = raw ? (JSON.parse(raw) as Stored) : null;
    } catch {
      stored = null;
    }
    if (!stored || !Array.isArray(stored.batches)) {
      if (own) this.#byKey.set(key, []);
      return 0;
    }
    const now = this.#now();
    if (!own && now - stored.updatedAt < ORPHAN_AFTER_MS) return 0;
    const fresh = stored.batches.filter((b) => {
      const ok =
        Array.isArray(b.events) && typeof b.sessionId === "string" && now - b.createdAt < MAX_BATCH_AGE_MS;
      if (!ok) this.expired++;
      return ok;
    });
    // A beacon mark belongs to the document that sent it; here the batch is simply unconfirmed.
    for (const b of fresh) b.beaconed = false;
    this.#byKey.set(key, fresh);
    this.#save(key);
    return fresh.length;
  }

  #save(key: string): void {
    if (this.#discarded) return;
    const list = this.#byKey.get(key) ?? [];
    this.#notDurable.delete(key);
    if (list.length === 0) {
      this.#byKey.delete(key);
      if (key === this.#keyOf(this.#sessionId)) this.#byKey.set(key, list);
      try {
        this.#store.removeItem(key);
      } catch {
        // Nothing to keep.
      }
      return;
    }
    const attempts = [list, list.filter((b) => b.kind !== "highFrequency")];
    for (const batches of attempts) {
      try {
        this.#store.setItem(key, JSON.stringify({ updatedAt: this.#now(), batches } satisfies Stored));
        if (batches.length < list.length) this.#notDurable.set(key, list.length - batches.length);
        return;
      } catch {
        // Storage full: try again with less.
      }
    }
    this.#notDurable.set(key, list.length);
  }
}
