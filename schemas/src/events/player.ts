/**
 * The player's event contract (spec, Limits; api.md "Events"): when a video's playback events come and
 * what they carry. The browser's tracker (web/src/lib/platform/tracking/playback.ts) sends them from a
 * real player; the simulators (api/src/simulation: a dry run at once, a load run on the wall clock)
 * send `playbackSequence` of a planned watch. Both read the numbers and the payloads here, so simulated
 * data is what real participants send.
 */
import type { JourneyAction } from "./catalog.ts";
import type { Payloads } from "./payloads.ts";

/** VIDEO_PROGRESS every 5 s of playback. */
export const PROGRESS_INTERVAL_S = 5;

/** VIDEO_WATCHED_1S and VIDEO_WATCHED_5S: once per source, when watched time first reaches them. */
export const WATCHED_MARKS = [
  { seconds: 1, type: "VIDEO_WATCHED_1S" },
  { seconds: 5, type: "VIDEO_WATCHED_5S" },
] as const;

/** Times in payloads: milliseconds of precision, as a player reports them. */
export const r3 = (n: number): number => Math.round(n * 1000) / 1000;

/** The promoted columns an event may carry besides its payload (spec: Wire format of one event). */
interface PlayerFields {
  /** The video's external id, never its UUID. */
  readonly video_id?: string;
  readonly watch_ratio?: number;
  readonly watch_duration?: number;
}

/** Where the playhead stands: seconds, and the share of the video (at most 1; 0 while its length is unknown). */
const position = (currentTime: number, duration: number) => ({
  currentTime: r3(currentTime),
  duration: r3(duration),
  progress: duration > 0 ? r3(Math.min(1, currentTime / duration)) : 0,
});

/** VIDEO_PLAY's payload. */
export const playPayload = (
  currentTime: number,
  duration: number,
  playbackRate: number,
): Payloads["VIDEO_PLAY"] => ({
  currentTime: r3(currentTime),
  duration: r3(duration),
  playbackRate,
});

/** VIDEO_PAUSE's payload: where, and how much has been watched. */
export const pausePayload = (
  currentTime: number,
  duration: number,
  watched: number,
): Payloads["VIDEO_PAUSE"] => ({
  currentTime: r3(currentTime),
  duration: r3(duration),
  watchedDuration: r3(watched),
});

/** VIDEO_SEEK's payload: `seekDistance` is signed (a seek back is negative). */
export const seekPayload = (from: number, to: number, duration: number): Payloads["VIDEO_SEEK"] => ({
  from: r3(from),
  to: r3(to),
  seekDistance: r3(to - from),
  duration: r3(duration),
});

/** VIDEO_PROGRESS's payload (every PROGRESS_INTERVAL_S played). */
export const progressPayload = (
  currentTime: number,
  duration: number,
  watched: number,
): Payloads["VIDEO_PROGRESS"] & { readonly watchedDuration: number } => ({
  ...position(currentTime, duration),
  watchedDuration: r3(watched),
});

/**
 * A watched mark (VIDEO_WATCHED_1S or _5S): where the playhead stands, and the promoted watched time and
 * share (the share only once the video's length is known).
 */
export function markEvent(currentTime: number, duration: number, watched: number) {
  return {
    payload: position(currentTime, duration),
    fields: {
      watch_duration: r3(watched),
      ...(duration > 0 ? { watch_ratio: r3(watched / duration) } : {}),
    } satisfies PlayerFields,
  };
}

/**
 * VIDEO_ENDED of a playback: its payload and its promoted columns (`completionRate` = `watch_ratio` =
 * watched / duration, at most 1, so a video skipped to its end has a low ratio; 0 while the length is
 * unknown).
 */
export function endedEvent(watched: number, duration: number) {
  const ratio = duration > 0 ? Math.min(1, watched / duration) : 0;
  return {
    payload: {
      duration: r3(duration),
      totalWatchedTime: r3(watched),
      completionRate: r3(ratio),
    } satisfies Payloads["VIDEO_ENDED"],
    fields: { watch_ratio: r3(ratio), watch_duration: r3(watched) } satisfies PlayerFields,
  };
}

/** Where playback events come from: the bundled native player, or a provider's (lower fidelity). */
export type PlayerSource = "native" | "youtube" | "vimeo";

/** What a participant does while a video plays, at a second of the video's clock. */
export type PlannedAction =
  | { readonly kind: "pause"; readonly atSecond: number; readonly forSeconds: number }
  | { readonly kind: "seek"; readonly atSecond: number; readonly toSecond: number }
  | { readonly kind: "like"; readonly atSecond: number }
  | { readonly kind: "dislike"; readonly atSecond: number };

/** A planned watch (api/src/simulation/watch.ts makes them). */
export interface PlannedWatch {
  readonly durationSeconds: number;
  readonly actions: readonly PlannedAction[];
  /** Where playback stops (the end when `reachesEnd`). */
  readonly stopAtSecond: number;
  readonly reachesEnd: boolean;
}

/** The player's events LIKE and DISLIKE come with (the watch page's buttons). */
type SequenceType =
  | "VIDEO_PLAY"
  | "VIDEO_PAUSE"
  | "VIDEO_SEEK"
  | "VIDEO_ENDED"
  | "VIDEO_PROGRESS"
  | "VIDEO_WATCHED_1S"
  | "VIDEO_WATCHED_5S"
  | "LIKE"
  | "DISLIKE";

/** One event of a planned watch, at its moment. */
export type SequencedEvent = {
  [K in SequenceType]: {
    /** Milliseconds of wall time after playback began (a pause stops the video's clock, not the wall's). */
    readonly atMs: number;
    readonly type: K;
    readonly payload: Payloads[K];
    readonly fields: PlayerFields;
    /** What the participant did that this event completes (a journey's action). */
    readonly action: PlaybackAction | null;
  };
}[SequenceType];

/** The journey actions a playback is made of (catalog.ts). */
type PlaybackAction = Extract<
  JourneyAction,
  "play" | "play_1s" | "play_5s" | "keep_playing" | "pause" | "seek" | "like" | "dislike" | "reach_end"
>;

/**
 * A planned watch's events in the order, and at the moments, a player sends them: VIDEO_PLAY, the 1 s
 * and 5 s marks, VIDEO_PROGRESS every 5 s played, pauses (VIDEO_PAUSE, then VIDEO_PLAY when it
 * resumes), seeks, likes, then VIDEO_ENDED or a last VIDEO_PAUSE. Watched time is media time that
 * played: a seek moves the video's clock and watches nothing.
 */
export function playbackSequence(
  videoId: string,
  plan: PlannedWatch,
  source: PlayerSource = "native",
): SequencedEvent[] {
  const out: SequencedEvent[] = [];
  const fields = { video_id: videoId };
  const duration = plan.durationSeconds;
  let wall = 0;
  let clock = 0;
  let played = 0;
  let nextProgress = PROGRESS_INTERVAL_S;
  const marked = new Set<number>();
  // Every player event names its player; the watch page's buttons (LIKE, DISLIKE) do not.
  const push = <K extends SequenceType>(
    type: K,
    given: Payloads[K],
    action: PlaybackAction | null,
    extra: PlayerFields = {},
  ) => {
    const payload = type === "LIKE" || type === "DISLIKE" ? given : { ...given, source };
    out.push({
      atMs: Math.round(wall * 1000),
      type,
      payload,
      fields: { ...fields, ...extra },
      action,
    } as SequencedEvent);
  };
  push("VIDEO_PLAY", playPayload(0, duration, 1), "play");
  const runTo = (target: number) => {
    while (clock < target) {
      const step = Math.min(target, Math.floor(clock) + 1) - clock;
      clock += step;
      played += step;
      wall += step;
      for (const mark of WATCHED_MARKS) {
        if (marked.has(mark.seconds) || played < mark.seconds) continue;
        marked.add(mark.seconds);
        const m = markEvent(clock, duration, played);
        push(mark.type, m.payload, mark.seconds === 1 ? "play_1s" : "play_5s", m.fields);
      }
      if (played >= nextProgress) {
        nextProgress += PROGRESS_INTERVAL_S;
        push("VIDEO_PROGRESS", progressPayload(clock, duration, played), "keep_playing");
      }
    }
  };
  for (const a of plan.actions) {
    runTo(a.atSecond);
    if (a.kind === "pause") {
      push("VIDEO_PAUSE", pausePayload(clock, duration, played), null);
      wall += a.forSeconds;
      push("VIDEO_PLAY", playPayload(clock, duration, 1), "pause");
    } else if (a.kind === "seek") {
      push("VIDEO_SEEK", seekPayload(clock, a.toSecond, duration), "seek");
      clock = a.toSecond;
    } else if (a.kind === "like") {
      push("LIKE", { videoId, timestamp: r3(clock) }, "like");
    } else {
      push("DISLIKE", { videoId }, "dislike");
    }
  }
  runTo(plan.stopAtSecond);
  if (plan.reachesEnd) {
    const ended = endedEvent(played, duration);
    push("VIDEO_ENDED", ended.payload, "reach_end", ended.fields);
  } else if (played > 0) {
    push("VIDEO_PAUSE", pausePayload(clock, duration, played), "pause");
  }
  return out;
}
