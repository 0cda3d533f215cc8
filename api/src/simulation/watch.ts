import type { Video } from "@feedlab/schemas";
import type { PlannedAction } from "@feedlab/schemas/events/player.ts";
import type { Random } from "../system/random.ts";
import type { BehaviourOptions } from "./options.ts";
import { affinity, type Taste } from "./taste.ts";

/**
 * One thing done while a video plays, at a point of the video's clock (seconds). A driver plays the
 * video until the clock reaches `atSecond`, then acts: these become VIDEO_PAUSE (and VIDEO_PLAY again),
 * VIDEO_SEEK, LIKE and DISLIKE.
 */
type WatchAction = PlannedAction;

/**
 * How a participant watches one video. Invariant: played in order, every action is reachable: its
 * `atSecond` is at or after where the clock stands once the action before it is done (a forward seek
 * never jumps over a later action), and `stopAtSecond` is at or after the last of them.
 */
export interface WatchPlan {
  readonly videoId: string;
  /** The video's duration, or the assumed one when it is unknown. */
  readonly durationSeconds: number;
  /** Whether playback runs to the end (VIDEO_ENDED); then `stopAtSecond` is the duration. */
  readonly reachesEnd: boolean;
  /** Where on the video's clock the participant leaves the watch page. */
  readonly stopAtSecond: number;
  readonly actions: readonly WatchAction[];
  /** Seconds of playback the plan takes (seeks skip or repeat parts), pauses not included. */
  readonly playSeconds: number;
  readonly liked: boolean;
  readonly disliked: boolean;
}

const round = (s: number) => Math.round(s * 1000) / 1000;

/**
 * The plan for one video. Taste sets the mean share watched (between `watchShare.low` and `.high`), the
 * chance to reach the end, and to like or dislike; pauses and one possible seek fall anywhere in the
 * part watched.
 */
export function planWatch(
  random: Random,
  taste: Taste,
  video: Pick<Video, "id" | "category" | "tags" | "duration_seconds">,
  options: BehaviourOptions,
): WatchPlan {
  const match = affinity(taste, video, options);
  const duration =
    video.duration_seconds !== null && video.duration_seconds > 0
      ? video.duration_seconds
      : options.unknownDurationSeconds;
  const reachesEnd = random.bernoulli(options.endRate * (0.5 + match));
  const meanShare = options.watchShare.low + (options.watchShare.high - options.watchShare.low) * match;
  let stopAt = reachesEnd ? duration : duration * random.beta(meanShare, 4);

  const drafted: WatchAction[] = [];
  const minutes = Math.max(1, Math.ceil(stopAt / 60));
  for (let m = 0; m < minutes; m++) {
    if (random.bernoulli(options.pauseRate)) {
      drafted.push({
        kind: "pause",
        atSecond: random.uniform(0, stopAt),
        forSeconds: round(random.logNormal(3, 0.6)),
      });
    }
  }
  if (random.bernoulli(options.seekRate)) {
    const at = random.uniform(0.1 * stopAt, 0.9 * stopAt);
    const back = random.bernoulli(0.5);
    const to = back
      ? Math.max(0, at - random.uniform(3, 15))
      : Math.min(duration, at + random.uniform(5, 30));
    drafted.push({ kind: "seek", atSecond: at, toSecond: round(to) });
    // A skip past where the participant meant to leave: they watch a little more after landing.
    if (to > stopAt) stopAt = reachesEnd ? duration : Math.min(duration, to + random.uniform(1, 10));
  }
  const liked = random.bernoulli(options.likeRate * 2 * match);
  const disliked = !liked && random.bernoulli(options.dislikeRate * 2 * (1 - match));
  if (liked) drafted.push({ kind: "like", atSecond: random.uniform(0, stopAt) });
  if (disliked) drafted.push({ kind: "dislike", atSecond: random.uniform(0, stopAt) });

  // Walk the drafted actions in clock order; drop what a forward seek jumps over (it cannot happen).
  drafted.sort((a, b) => a.atSecond - b.atSecond);
  const actions: WatchAction[] = [];
  let clock = 0;
  let played = 0;
  for (const a of drafted) {
    if (a.atSecond < clock) continue;
    played += a.atSecond - clock;
    clock = a.atSecond;
    actions.push({ ...a, atSecond: round(a.atSecond) });
    if (a.kind === "seek") clock = a.toSecond;
  }
  // A like or dislike that a skip jumped over is not given: the plan says what really happens.
  const kept = (kind: "like" | "dislike") => actions.some((a) => a.kind === kind);
  const stopAtSecond = round(Math.max(stopAt, clock));
  played += stopAtSecond - clock;
  return {
    videoId: video.id,
    durationSeconds: duration,
    reachesEnd,
    stopAtSecond,
    actions,
    playSeconds: round(played),
    liked: kept("like"),
    disliked: kept("dislike"),
  };
}
