import type { EventType, Payloads } from "@feedlab/schemas";
import { type RowFields, stampEvent } from "@feedlab/schemas/events/stamp.ts";
import { type BufferName, bufferOf, flushRule } from "@feedlab/schemas/events/types.ts";
import type { Batch, OutgoingEvent } from "./outbox.ts";
import type { KeyValueStore } from "./storage.ts";
import type { Transport } from "./transport.ts";

/** One event as the tracker sends it: the wire format with `event_id`, `seq` and a payload always present. */

/**
 * A payload of the type: its required fields (schemas/src/events/payloads.ts) plus any extra fields,
 * which the contract allows and stores as they are.
 */
export type PayloadOf<K extends EventType> = Payloads[K] & { readonly [extra: string]: unknown };

export type { RowFields } from "@feedlab/schemas/events/stamp.ts";

/**
 * The per-session sequence number: 1 for a session's first event, then +1 for every event, kept in
 * sessionStorage so it carries on across reloads. Gaps in the stored `seq` of a session measure loss.
 */
export class SequenceStore {
  readonly #store: KeyValueStore;
  readonly #key: string;
  #last: number;

  constructor(store: KeyValueStore, sessionId: string) {
    this.#store = store;
    this.#key = `feedlab.seq.${sessionId}`;
    const stored = Number(store.getItem(this.#key));
    this.#last = Number.isSafeInteger(stored) && stored > 0 ? stored : 0;
  }

  next(): number {
    this.#last++;
    try {
      this.#store.setItem(this.#key, String(this.#last));
    } catch {
      // Storage unavailable: the counter still runs for this page.
    }
    return this.#last;
  }

  get last(): number {
    return this.#last;
  }
}

export interface TrackerDeps {
  readonly sessionId: string;
  readonly transport: Transport;
  readonly seq: SequenceStore;
  readonly now: () => number;
  readonly newId: () => string;
}

/** One of the buffers of the spec's batching table. */
class Buffer {
  readonly name: BufferName;
  events: OutgoingEvent[] = [];
  timer: ReturnType<typeof setTimeout> | null = null;

  constructor(name: BufferName) {
    this.name = name;
  }

  clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}

/**
 * The tracking core's front: every event of every surface enters here. It stamps the event
 * (`event_id`, client `timestamp`, session `seq`), puts it in the buffer its type belongs to, and
 * flushes exactly as the spec's batching table says (not configurable):
 *
 * | buffer         | flushed when                                               |
 * |----------------|------------------------------------------------------------|
 * | normal         | 5 s after its first event, or at 20 events                 |
 * | high-frequency | 2 s after its first event, or at 50 events                 |
 * | immediate      | as soon as an event enters it (VIDEO_ENDED, LIKE, ...)     |
 * | all three      | page unload: one batch, sent by beacon                     |
 *
 * High-frequency and normal events never share a batch except on unload. A flushed buffer becomes one
 * batch, handed to the transport (outbox, retries, beacon).
 */
export class Tracker {
  readonly sessionId: string;
  readonly transport: Transport;
  readonly #deps: TrackerDeps;
  readonly #buffers: Record<BufferName, Buffer> = {
    normal: new Buffer("normal"),
    highFrequency: new Buffer("highFrequency"),
    immediate: new Buffer("immediate"),
  };
  readonly #listeners = new Set<(event: OutgoingEvent) => void>();
  /** True while the unload batch is being assembled: nothing flushes on its own then. */
  #unloading = false;

  constructor(deps: TrackerDeps) {
    this.#deps = deps;
    this.sessionId = deps.sessionId;
    this.transport = deps.transport;
  }

  /** Records one event. `payload` must hold the type's required fields (schemas/src/events/payloads.ts). */
  track<K extends EventType>(type: K, payload: PayloadOf<K>, fields: RowFields = {}): OutgoingEvent {
    const event: OutgoingEvent = stampEvent(type, payload, fields, {
      id: this.#deps.newId(),
      at: this.#deps.now(),
      seq: this.#deps.seq.next(),
    });
    for (const listener of this.#listeners) listener(event);
    const buffer = this.#buffers[bufferOf(type)];
    buffer.events.push(event);
    if (this.#unloading) return event;
    const rule = flushRule(buffer.name, buffer.events.length);
    if (rule === "now") this.#flush(buffer);
    else buffer.timer ??= setTimeout(() => this.#flush(buffer), rule.afterMs);
    return event;
  }

  /**
   * Flushes buffers now, each as its own batch (the page is being left inside the app: an in-app
   * navigation is the single-page app's unload, and the next page reads these events' effects).
   */
  flush(): void {
    this.#flush(this.#buffers.immediate);
    this.#flush(this.#buffers.normal);
    this.#flush(this.#buffers.highFrequency);
  }

  /**
   * Page unload: `last` records the final events (page exit, SESSION_END) without flushing anything,
   * then every buffered event goes into one batch and the transport hands all unsent batches to
   * `navigator.sendBeacon`.
   */
  unload(last: () => void = () => {}): void {
    this.#unloading = true;
    try {
      last();
    } finally {
      this.#unloading = false;
    }
    const events = [
      ...this.#buffers.immediate.events,
      ...this.#buffers.normal.events,
      ...this.#buffers.highFrequency.events,
    ].sort((a, b) => a.seq - b.seq);
    for (const buffer of Object.values(this.#buffers)) {
      buffer.clearTimer();
      buffer.events = [];
    }
    if (events.length > 0) this.#deps.transport.hold(this.#batch("unload", events));
    this.#deps.transport.beacon();
  }

  /** Events waiting in the buffers. */
  get buffered(): number {
    return Object.values(this.#buffers).reduce((n, b) => n + b.events.length, 0);
  }

  /** Sees every event as it is recorded (diagnostics, tests). Returns the unsubscribe function. */
  subscribe(listener: (event: OutgoingEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the flush timers (the buffers' events stay until the next flush or unload). */
  dispose(): void {
    for (const buffer of Object.values(this.#buffers)) buffer.clearTimer();
  }

  #flush(buffer: Buffer): void {
    buffer.clearTimer();
    if (buffer.events.length === 0) return;
    const events = buffer.events;
    buffer.events = [];
    this.#deps.transport.enqueue(this.#batch(buffer.name, events));
  }

  #batch(kind: Batch["kind"], events: OutgoingEvent[]): Batch {
    return {
      id: this.#deps.newId(),
      sessionId: this.sessionId,
      kind,
      events,
      createdAt: this.#deps.now(),
      attempts: 0,
    };
  }
}
