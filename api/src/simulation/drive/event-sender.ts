import { randomUUID } from "node:crypto";
import {
  type BufferName,
  bufferOf,
  type EventBatchResult,
  type EventType,
  type Payloads,
} from "@feedlab/schemas";
import { type RowFields, type StampedEvent, stampEvent } from "@feedlab/schemas/events/stamp.ts";
import { flushRule } from "@feedlab/schemas/events/types.ts";
import type { ParticipantClient } from "./participant-client.ts";

export type { RowFields } from "@feedlab/schemas/events/stamp.ts";

/** An event the server refused, with its type. */
export interface Rejection {
  readonly type: EventType;
  readonly code: string;
  readonly message: string;
}

/** What became of one batch: the status (0: no answer), the events in it and the position of a 202. */
export interface BatchOutcome {
  readonly status: number;
  readonly events: number;
  readonly position: string | null;
}

export interface SenderOptions {
  /**
   * Send only when told (`sendAll`), never on `track`: a load test's participants send one batch every
   * 5 s, the normal buffer's age limit, whatever the buffers hold (api.md: `feedlab simulate`).
   */
  readonly paced?: boolean;
}

/**
 * Sends a session's events as the participant runtime does (spec: Batching): each stamped as the
 * browser's tracker stamps it (`stampEvent`, `seq` from 1), in three buffers flushed by the tracker's
 * rule (`flushRule`: an immediate type at once, the normal buffer at 20 events, the high-frequency one
 * at 50), and everything when the page is left (`flush`). Time is compressed, so the buffers' age
 * limits are met by the page changes instead. Keeps what the server acknowledged and refused, and the last log position.
 * A paced sender (`SenderOptions.paced`) leaves the flushing to its owner's clock.
 */
export class EventSender {
  private seq = 0;
  private readonly buffers: Record<BufferName, StampedEvent[]> = {
    normal: [],
    highFrequency: [],
    immediate: [],
  };
  /** Event ids the server answered 202 for and did not reject. */
  readonly acknowledged: string[] = [];
  readonly rejected: Rejection[] = [];
  /** Types sent (acknowledged or not), in order of first sending. */
  readonly sentTypes = new Set<EventType>();
  /** Batches the server did not take at all (a status other than 202, or no answer). */
  failedBatches = 0;
  position: string | null = null;

  private readonly client: ParticipantClient;
  private readonly sessionId: string;
  private readonly paced: boolean;

  constructor(client: ParticipantClient, sessionId: string, options: SenderOptions = {}) {
    this.client = client;
    this.sessionId = sessionId;
    this.paced = options.paced ?? false;
  }

  /** Buffers one event; resolves once any flush it causes is answered. */
  async track<K extends EventType>(type: K, payload: Payloads[K], fields: RowFields = {}): Promise<void> {
    const buffer = bufferOf(type);
    this.seq += 1;
    this.buffers[buffer].push(
      stampEvent(type, payload, fields, { id: randomUUID(), at: Date.now(), seq: this.seq }),
    );
    this.sentTypes.add(type);
    if (this.paced) return;
    if (flushRule(buffer, this.buffers[buffer].length) === "now") await this.send(buffer);
  }

  /** Sends every buffer (the page is left, or the session ends). */
  async flush(): Promise<void> {
    for (const name of ["normal", "highFrequency", "immediate"] as const) await this.send(name);
  }

  /** Sends everything buffered as one batch, in `seq` order; null when nothing was buffered. */
  async sendAll(): Promise<BatchOutcome | null> {
    const events = [...this.buffers.normal, ...this.buffers.highFrequency, ...this.buffers.immediate];
    if (events.length === 0) return null;
    for (const buffer of Object.values(this.buffers)) buffer.length = 0;
    return this.post(events.sort((a, b) => a.seq - b.seq));
  }

  private async send(name: BufferName): Promise<void> {
    const events = this.buffers[name].splice(0);
    if (events.length === 0) return;
    await this.post(events);
  }

  private async post(events: StampedEvent[]): Promise<BatchOutcome> {
    const reply = await this.client
      .post<EventBatchResult>("/api/v1/events", { session_id: this.sessionId, events })
      .catch(() => null);
    if (reply === null || reply.status !== 202) {
      this.failedBatches += 1;
      return { status: reply?.status ?? 0, events: events.length, position: null };
    }
    const refused = new Set(reply.body.rejected.map((r) => r.index));
    events.forEach((e, i) => {
      if (!refused.has(i)) this.acknowledged.push(e.event_id);
    });
    for (const r of reply.body.rejected) {
      const type = events[r.index]?.event_type;
      if (type) this.rejected.push({ type, code: r.code, message: r.message });
    }
    this.position = reply.body.position;
    return { status: 202, events: events.length, position: reply.body.position };
  }
}
