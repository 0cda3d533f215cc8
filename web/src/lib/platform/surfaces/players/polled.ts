// What the adapters of providers' players share (YouTube, Vimeo): the provider's iframe cannot be
// observed directly, so an adapter polls the provider's API and this module derives the playback
// events from what changed between two polls, through the same PlaybackTracker the native player uses.
import type { MediaState, PlaybackTracker } from "../../tracking/playback.ts";

/** Spec: an adapter polls the provider's player every 250 to 1000 ms. */
const MIN_POLL_MS = 250;
const MAX_POLL_MS = 1000;
const DEFAULT_POLL_MS = 500;

export const pollInterval = (pollMs: number | undefined) =>
  Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollMs ?? DEFAULT_POLL_MS));

/** One reading of a provider's player. */
export interface Observation {
  /** performance.now() of the reading. */
  readonly at: number;
  readonly state: "idle" | "playing" | "paused" | "ended" | "buffering";
  readonly time: number;
  readonly duration: number;
  readonly rate: number;
  readonly volume: number;
  readonly muted: boolean;
}

/** Whether the participant is watching: playing, or stalled while playing (buffering). */
export const playingIn = (o: Observation): boolean => o.state === "playing" || o.state === "buffering";

/** The media state the tracker reads, from an observation (none yet: a paused player at 0). */
export function mediaStateOf(o: Observation | null): MediaState {
  return {
    currentTime: o?.time ?? 0,
    duration: o?.duration ?? 0,
    paused: o ? !playingIn(o) : true,
    ended: o?.state === "ended",
    playbackRate: o?.rate ?? 1,
    volume: o?.volume ?? 1,
    muted: o?.muted ?? false,
    // Derived: the APIs have no ready or network state; buffering reads as a stalled element would.
    readyState: o?.state === "buffering" ? 2 : 4,
    networkState: o?.state === "buffering" ? 2 : 1,
  };
}

/**
 * The events between two polls: state changes become VIDEO_PLAY, VIDEO_PAUSE, VIDEO_ENDED and
 * VIDEO_BUFFERING; a current time away from where the previous poll and the elapsed time put it is a
 * VIDEO_SEEK from the last polled position; rate and volume differences are PLAYBACK_RATE_CHANGE and
 * VOLUME_CHANGE (values between two polls are missed); watched time advances with every poll.
 */
export function derive(
  playback: PlaybackTracker,
  prev: Observation | null,
  now: Observation,
  intervalMs: number,
) {
  if (!prev) {
    playback.ready();
    if (now.state === "playing") playback.play();
    return;
  }
  const elapsed = (now.at - prev.at) / 1000;
  const expected = prev.time + (prev.state === "playing" ? elapsed * prev.rate : 0);
  const tolerance = Math.max(1, 1.5 * (intervalMs / 1000) * prev.rate);
  if (Math.abs(now.time - expected) > tolerance && now.state !== "ended") playback.seek(prev.time, now.time);
  if (now.state !== prev.state) {
    if (now.state === "playing") playback.play();
    else if (now.state === "paused") playback.pause();
    else if (now.state === "ended") playback.ended();
    else if (now.state === "buffering") playback.waiting();
  }
  playback.tick();
  if (now.rate !== prev.rate) playback.rateChanged();
  if (now.volume !== prev.volume || now.muted !== prev.muted) playback.volumeChanged();
}
