import { type LoggedEvent, WATCH_DURATION_MAX_S, WATCH_RATIO_MAX, type WireEvent } from "@feedlab/schemas";
import { ok, type StepResult } from "./results.ts";

/** Who sent a batch and the configuration in force when it arrived. */
export interface StampContext {
  readonly session_id: string;
  readonly user_id: string;
  readonly login_id: string;
  readonly experiment_id: string;
  /**
   * Null while the participant has no arm (a study that assigns on the pre survey's answers: api.md
   * "Assignment (wave 4)"); the recommender keys are then empty and the UIs null.
   */
  readonly group_id: string | null;
  readonly algorithm_feed: string;
  readonly algorithm_watch: string;
  /** The UI of each page: a preset key, `none`, or `<template id>@<version>`. */
  readonly ui_feed: string | null;
  readonly ui_watch: string | null;
  /** The participant is simulated (a dry run): their events carry `simulated: true`. */
  readonly simulated?: boolean;
}

/**
 * A payload number promoted to a column, within the bounds the envelope's own field has (an
 * out-of-range value stays in the payload only: analyses that read the column never meet it).
 */
const within =
  (max: number) =>
  (v: unknown): number | null =>
    typeof v === "number" && v >= 0 && v <= max ? v : null;
const ratio = within(WATCH_RATIO_MAX);
const seconds = within(WATCH_DURATION_MAX_S);
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/**
 * Stamps a valid wire event with the server fields. Promoted columns the client left out are derived
 * from the payload where the spec says the payload carries them (VIDEO_ENDED: completionRate and
 * totalWatchedTime; VIDEO_WATCHED_1S/5S: progress and currentTime), and `video_id` from the payload's
 * videoId for LIKE, DISLIKE and VIDEO_META_CAPTURED, so every reader finds them in one place.
 * A valid event always stamps (`ok`): a payload number out of bounds leaves its column empty instead.
 */
export function stamp(e: WireEvent, ctx: StampContext, receivedAt: Date): StepResult<LoggedEvent> {
  const p = (e.payload ?? {}) as Record<string, unknown>;
  let watchRatio = e.watch_ratio ?? null;
  let watchDuration = e.watch_duration ?? null;
  let videoId = e.video_id ?? null;
  const t = e.event_type;
  if (t === "VIDEO_ENDED") {
    watchRatio ??= ratio(p.completionRate);
    watchDuration ??= seconds(p.totalWatchedTime);
  } else if (t === "VIDEO_WATCHED_1S" || t === "VIDEO_WATCHED_5S") {
    watchRatio ??= ratio(p.progress);
    watchDuration ??= seconds(p.currentTime);
  } else if (t === "LIKE" || t === "DISLIKE" || t === "VIDEO_META_CAPTURED") {
    videoId ??= str(p.videoId);
  }
  return ok({
    event_id: e.event_id.toLowerCase(),
    session_id: ctx.session_id,
    user_id: ctx.user_id,
    login_id: ctx.login_id,
    experiment_id: ctx.experiment_id,
    group_id: ctx.group_id,
    event_type: e.event_type,
    video_id: videoId,
    timestamp: new Date(e.timestamp).toISOString(),
    received_at: receivedAt.toISOString(),
    watch_ratio: watchRatio,
    watch_duration: watchDuration,
    position_in_feed: e.position_in_feed ?? null,
    algorithm_feed: ctx.algorithm_feed,
    algorithm_watch: ctx.algorithm_watch,
    payload: p,
    seq: e.seq ?? null,
    ui_feed: ctx.ui_feed,
    ui_watch: ctx.ui_watch,
    ...(ctx.simulated === true ? { simulated: true } : {}),
  });
}
