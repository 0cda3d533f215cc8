import type { EventType } from "@feedlab/schemas";
import { type PlayerSource, playbackSequence } from "@feedlab/schemas/events/player.ts";
import type { EventSender } from "../drive/event-sender.ts";
import { trackSequenced } from "../drive/http-pages.ts";
import type { WatchPlan } from "../watch.ts";

/** One playback event at its moment: milliseconds of wall time after the watch page started playing. */
export interface TimedEvent {
  readonly atMs: number;
  readonly type: EventType;
  /** Buffers the event with the sender (its payload and row fields as the player sends them). */
  readonly track: (events: EventSender) => Promise<void>;
}

/**
 * A plan's playback events on the wall clock, for a participant who watches at human pace (the load
 * mode; a dry run sends the same events at once, `http-pages.ts` `play`): the player contract's
 * sequence (schemas/src/events/player.ts), where wall time runs with the video's clock while it plays
 * and stands still through a pause's `forSeconds`.
 */
export function playbackTimeline(
  videoId: string,
  plan: WatchPlan,
  source: PlayerSource = "native",
): TimedEvent[] {
  return playbackSequence(videoId, plan, source).map((e) => ({
    atMs: e.atMs,
    type: e.type,
    track: (events) => trackSequenced(events, e),
  }));
}
