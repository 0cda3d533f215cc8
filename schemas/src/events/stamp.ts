import type { Payloads } from "./payloads.ts";
import type { EventType } from "./types.ts";
import type { WireEvent } from "./wire.ts";

// How a client stamps the events it sends (the browser's tracker and the simulators alike). Types
// only from the rest of schemas: the participant's bundle imports this, and a module that builds
// TypeBox schemas at its top level would bring the schema builders with it (12 KB gzipped).

/** The promoted columns an event may carry besides its payload (spec: Wire format of one event). */
export interface RowFields {
  /** The video's external id (`external_id`), never its UUID. */
  readonly video_id?: string;
  readonly watch_ratio?: number;
  readonly watch_duration?: number;
  readonly position_in_feed?: number;
}

/** An event as a client sends it: the wire format with its `seq`. */
export type StampedEvent = WireEvent & { readonly seq: number };

const finiteNumber = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

/**
 * One event as a client sends it (the browser's tracker and the simulators alike): its id, client
 * timestamp and per-session `seq` (1 for a session's first event), and the row fields that make sense
 * (a video id that is set; numbers that are finite, never negative, a feed position whole).
 */
export function stampEvent<K extends EventType>(
  type: K,
  payload: Payloads[K],
  fields: RowFields,
  stamp: { readonly id: string; readonly at: number; readonly seq: number },
): StampedEvent {
  return {
    event_id: stamp.id,
    event_type: type,
    timestamp: new Date(stamp.at).toISOString(),
    ...(fields.video_id ? { video_id: fields.video_id } : {}),
    ...(finiteNumber(fields.watch_ratio) ? { watch_ratio: Math.max(0, fields.watch_ratio) } : {}),
    ...(finiteNumber(fields.watch_duration) ? { watch_duration: Math.max(0, fields.watch_duration) } : {}),
    ...(finiteNumber(fields.position_in_feed)
      ? { position_in_feed: Math.max(0, Math.round(fields.position_in_feed)) }
      : {}),
    payload,
    seq: stamp.seq,
  } as StampedEvent;
}
