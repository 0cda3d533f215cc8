import type { EventType } from "@feedlab/schemas";
import type { EventSender } from "../drive/event-sender.ts";
import type { WatchPlan } from "../watch.ts";

/** VIDEO_PROGRESS comes every 5 s of playback (spec). */
const PROGRESS_EVERY_S = 5;

/** One playback event at its moment: milliseconds of wall time after the watch page started playing. */
export interface TimedEvent {
  readonly atMs: number;
  readonly type: EventType;
  /** Buffers the event with the sender (its payload and row fields as the player sends them). */
  readonly track: (events: EventSender) => Promise<void>;
}

/**
 * A plan's playback events on the wall clock, for a participant who watches at human pace (the load
 * mode; a dry run sends the same events at once, `http-pages.ts` `play`). Wall time runs with the
 * video's clock while it plays and stands still through a pause's `forSeconds`; a seek moves the
 * video's clock only. The events and their payloads are the player's: VIDEO_PLAY, the 1 s and 5 s
 * marks, VIDEO_PROGRESS every 5 s played, pauses, seeks, likes, then VIDEO_ENDED or a last VIDEO_PAUSE.
 */
export function playbackTimeline(videoId: string, plan: WatchPlan): TimedEvent[] {
  const out: TimedEvent[] = [];
  const vid = { video_id: videoId };
  const duration = plan.durationSeconds;
  const at = (t: number) => ({ currentTime: t, duration, progress: duration > 0 ? t / duration : 0 });
  let wall = 0;
  let clock = 0;
  let played = 0;
  let nextProgress = PROGRESS_EVERY_S;
  let marked1 = false;
  let marked5 = false;
  const push = (type: EventType, track: TimedEvent["track"]) =>
    out.push({ atMs: Math.round(wall * 1000), type, track });

  push("VIDEO_PLAY", (e) => e.track("VIDEO_PLAY", { currentTime: 0, duration, playbackRate: 1 }, vid));
  const runTo = (target: number) => {
    while (clock < target) {
      const step = Math.min(target, Math.floor(clock) + 1) - clock;
      clock += step;
      played += step;
      wall += step;
      const now = at(clock);
      if (!marked1 && played >= 1) {
        marked1 = true;
        push("VIDEO_WATCHED_1S", (e) => e.track("VIDEO_WATCHED_1S", now, vid));
      }
      if (!marked5 && played >= 5) {
        marked5 = true;
        push("VIDEO_WATCHED_5S", (e) => e.track("VIDEO_WATCHED_5S", now, vid));
      }
      if (played >= nextProgress) {
        nextProgress += PROGRESS_EVERY_S;
        push("VIDEO_PROGRESS", (e) => e.track("VIDEO_PROGRESS", now, vid));
      }
    }
  };
  for (const a of plan.actions) {
    runTo(a.atSecond);
    const t = clock;
    const watched = played;
    if (a.kind === "pause") {
      push("VIDEO_PAUSE", (e) =>
        e.track("VIDEO_PAUSE", { currentTime: t, duration, watchedDuration: watched }, vid),
      );
      wall += a.forSeconds;
      push("VIDEO_PLAY", (e) => e.track("VIDEO_PLAY", { currentTime: t, duration, playbackRate: 1 }, vid));
    } else if (a.kind === "seek") {
      const to = a.toSecond;
      push("VIDEO_SEEK", (e) =>
        e.track("VIDEO_SEEK", { from: t, to, seekDistance: Math.abs(to - t), duration }, vid),
      );
      clock = to;
    } else if (a.kind === "like") {
      push("LIKE", (e) => e.track("LIKE", { videoId, timestamp: t }, vid));
    } else {
      push("DISLIKE", (e) => e.track("DISLIKE", { videoId }, vid));
    }
  }
  runTo(plan.stopAtSecond);
  const t = clock;
  const watched = played;
  if (plan.reachesEnd) {
    const rate = duration > 0 ? Math.min(1, watched / duration) : 1;
    push("VIDEO_ENDED", (e) =>
      e.track(
        "VIDEO_ENDED",
        { duration, totalWatchedTime: watched, completionRate: rate },
        { ...vid, watch_ratio: rate, watch_duration: watched },
      ),
    );
  } else if (watched > 0) {
    push("VIDEO_PAUSE", (e) =>
      e.track("VIDEO_PAUSE", { currentTime: t, duration, watchedDuration: watched }, vid),
    );
  }
  return out;
}
