import type { EventType } from "@feedlab/schemas";
import {
  endedEvent,
  markEvent,
  type PlayerSource,
  PROGRESS_INTERVAL_S,
  pausePayload,
  playPayload,
  progressPayload,
  r3,
  seekPayload,
  WATCHED_MARKS,
} from "@feedlab/schemas/events/player.ts";
import type { PayloadOf, RowFields } from "./tracker.ts";

/** VIDEO_PROGRESS every 5 s of playback (the player contract). */
const PROGRESS_INTERVAL_MS = PROGRESS_INTERVAL_S * 1000;
/** Volume changes closer together than this (a slider being dragged) are reported as one. */
const VOLUME_SETTLE_MS = 250;

/** What a player adapter can say about its media at any moment (an HTMLMediaElement, or a poll). */
export interface MediaState {
  readonly currentTime: number;
  /** Seconds; 0 while unknown. */
  readonly duration: number;
  readonly paused: boolean;
  readonly ended: boolean;
  readonly playbackRate: number;
  /** 0 to 1. */
  readonly volume: number;
  readonly muted: boolean;
  readonly readyState: number;
  readonly networkState: number;
  /** A seek is under way (the position already reads the target): native players only. */
  readonly seeking?: boolean;
}

type PlaybackType = Extract<
  EventType,
  | "VIDEO_PLAY"
  | "VIDEO_PAUSE"
  | "VIDEO_SEEK"
  | "VIDEO_ENDED"
  | "VIDEO_PROGRESS"
  | "VIDEO_WATCHED_1S"
  | "VIDEO_WATCHED_5S"
  | "VIDEO_BUFFERING"
  | "PLAYBACK_RATE_CHANGE"
  | "VOLUME_CHANGE"
  | "FULLSCREEN_CHANGE"
  | "KEYBOARD_SHORTCUT"
>;

type PlaybackEmit = <K extends PlaybackType>(type: K, payload: PayloadOf<K>, fields: RowFields) => void;

export interface PlaybackTrackerOptions {
  /** The video's external id: every playback event carries it as `video_id`. */
  readonly videoId: string;
  readonly source: PlayerSource;
  readonly read: () => MediaState;
  readonly emit: PlaybackEmit;
  /**
   * The largest gap between two ticks that still counts as continuous playback (seconds of media time
   * at rate 1). Native players tick every frame; a polling adapter needs about 2.5 poll intervals.
   */
  readonly maxTickGapSec?: number;
}

const finite = (n: number) => (Number.isFinite(n) && n > 0 ? n : 0);

/**
 * Turns what a player reports into the spec's playback events, the same way for every player. The
 * adapter calls the method named after what happened (`play`, `pause`, `seeked`, `tick` on every frame
 * or poll, ...) and the tracker reads the media state it needs.
 *
 * Watched time is media time that actually played: the sum of forward steps between ticks while
 * playing, leaving out seeks and anything longer than `maxTickGapSec`. VIDEO_WATCHED_1S and _5S fire
 * when watched time first reaches 1 s and 5 s, once per source (a replay does not repeat them), with
 * the promoted `watch_duration` (watched seconds) and `watch_ratio` (watched / duration). VIDEO_ENDED
 * carries the same two columns (`completionRate` = `watch_ratio`, at most 1), so a video skipped to its
 * end has a low ratio. Every payload carries `source`.
 */
export class PlaybackTracker {
  readonly #o: PlaybackTrackerOptions;
  readonly #maxGap: number;
  #playing = false;
  #lastTime: number | null = null;
  #seekFrom: number | null = null;
  #watched = 0;
  #thresholdsSent = new Set<number>();
  #progressTimer: ReturnType<typeof setInterval> | null = null;
  #lastRate: number | null = null;
  #volume: { volume: number; muted: boolean } | null = null;
  #volumeBefore: { volume: number; muted: boolean } | null = null;
  #volumeTimer: ReturnType<typeof setTimeout> | null = null;
  #disposed = false;

  constructor(options: PlaybackTrackerOptions) {
    this.#o = options;
    this.#maxGap = options.maxTickGapSec ?? 1;
  }

  /** Seconds of the video actually played so far. */
  get watchedSeconds(): number {
    return this.#watched;
  }

  get playing(): boolean {
    return this.#playing;
  }

  /** The player knows its media (metadata loaded): the baseline for rate and volume changes. */
  ready(): void {
    const s = this.#o.read();
    this.#lastRate = s.playbackRate;
    this.#volume = { volume: s.volume, muted: s.muted };
  }

  play(): void {
    if (this.#disposed || this.#playing) return;
    const s = this.#o.read();
    this.#playing = true;
    this.#lastTime = s.currentTime;
    this.#emit("VIDEO_PLAY", playPayload(s.currentTime, finite(s.duration), s.playbackRate));
    this.#progressTimer ??= setInterval(() => this.#progress(), PROGRESS_INTERVAL_MS);
  }

  pause(extra: Record<string, unknown> = {}): void {
    if (this.#disposed || !this.#playing) return;
    this.tick();
    this.#stopPlaying();
    const s = this.#o.read();
    // A native element fires `pause` just before `ended`: that is the end, not a pause.
    if (s.ended) return;
    this.#emit("VIDEO_PAUSE", {
      ...pausePayload(s.currentTime, finite(s.duration), this.#watched),
      ...extra,
    });
  }

  /** A frame or a poll: accounts watched time and fires the watched thresholds. */
  tick(): void {
    if (this.#disposed || this.#seekFrom !== null) return;
    const s = this.#o.read();
    if (s.seeking) {
      // The position already reads the seek's target: the jump is the seek's, not watched time.
      this.seeking();
      return;
    }
    const t = s.currentTime;
    if (this.#playing && this.#lastTime !== null) {
      const step = t - this.#lastTime;
      if (step > 0 && step <= this.#maxGap * Math.max(1, s.playbackRate)) this.#watched += step;
    }
    this.#lastTime = t;
    for (const mark of WATCHED_MARKS) {
      // Compared as reported (to the millisecond): watched time is a sum of many float steps, and the
      // event must never carry a watch_duration below its threshold.
      if (r3(this.#watched) >= mark.seconds && !this.#thresholdsSent.has(mark.seconds)) {
        this.#thresholdsSent.add(mark.seconds);
        const m = markEvent(s.currentTime, finite(s.duration), this.#watched);
        this.#emit(mark.type, m.payload, m.fields);
      }
    }
  }

  /** A native seek started: it jumps from where the last tick saw the playhead. */
  seeking(): void {
    if (this.#seekFrom === null) this.#seekFrom = this.#lastTime ?? 0;
  }

  /** A native seek finished at the current position. */
  seeked(): void {
    const from = this.#seekFrom;
    this.#seekFrom = null;
    if (from === null) return;
    this.seek(from, this.#o.read().currentTime);
  }

  /** A seek from one position to another (a polling adapter derives it from a jump). */
  seek(from: number, to: number): void {
    if (this.#disposed) return;
    this.#seekFrom = null;
    this.#lastTime = to;
    if (Math.abs(to - from) < 0.01) return;
    this.#emit("VIDEO_SEEK", seekPayload(from, to, finite(this.#o.read().duration)));
  }

  ended(): void {
    if (this.#disposed) return;
    this.tick();
    this.#stopPlaying();
    const s = this.#o.read();
    const ended = endedEvent(this.#watched, finite(s.duration));
    this.#emit("VIDEO_ENDED", ended.payload, ended.fields);
  }

  /** Playback stalled for lack of data. */
  waiting(): void {
    if (this.#disposed) return;
    const s = this.#o.read();
    this.#emit("VIDEO_BUFFERING", {
      currentTime: r3(s.currentTime),
      readyState: Math.max(0, Math.round(s.readyState)),
      networkState: Math.max(0, Math.round(s.networkState)),
    });
  }

  rateChanged(): void {
    if (this.#disposed) return;
    const s = this.#o.read();
    if (this.#lastRate === s.playbackRate) return;
    this.#lastRate = s.playbackRate;
    this.#emit("PLAYBACK_RATE_CHANGE", { newRate: s.playbackRate, currentTime: r3(s.currentTime) });
  }

  /** Volume or mute changed; changes within 250 ms of each other are reported once. */
  volumeChanged(): void {
    if (this.#disposed) return;
    if (this.#volume === null) this.ready();
    this.#volumeBefore ??= this.#volume;
    if (this.#volumeTimer !== null) clearTimeout(this.#volumeTimer);
    this.#volumeTimer = setTimeout(() => this.#settleVolume(), VOLUME_SETTLE_MS);
  }

  fullscreen(isFullscreen: boolean): void {
    if (this.#disposed) return;
    this.#emit("FULLSCREEN_CHANGE", { isFullscreen });
  }

  /** A keyboard shortcut the player acted on. */
  shortcut(key: string, action: string, modifiers: { shiftKey: boolean; ctrlKey: boolean }): void {
    if (this.#disposed) return;
    this.#emit("KEYBOARD_SHORTCUT", {
      key,
      action,
      currentTime: r3(this.#o.read().currentTime),
      shiftKey: modifiers.shiftKey,
      ctrlKey: modifiers.ctrlKey,
    });
  }

  /** The page is being left: a playing video counts as paused there. Stops the timers. */
  dispose(): void {
    if (this.#disposed) return;
    if (this.#volumeTimer !== null) {
      clearTimeout(this.#volumeTimer);
      this.#settleVolume();
    }
    if (this.#playing) this.pause({ reason: "page_exit" });
    this.#stopPlaying();
    this.#disposed = true;
  }

  #settleVolume(): void {
    this.#volumeTimer = null;
    const before = this.#volumeBefore;
    this.#volumeBefore = null;
    const s = this.#o.read();
    this.#volume = { volume: s.volume, muted: s.muted };
    if (!before || (before.volume === s.volume && before.muted === s.muted)) return;
    this.#emit("VOLUME_CHANGE", {
      volume: r3(s.volume),
      previousVolume: r3(before.volume),
      muted: s.muted,
      previousMuted: before.muted,
    });
  }

  #progress(): void {
    if (!this.#playing) return;
    this.tick();
    const s = this.#o.read();
    this.#emit("VIDEO_PROGRESS", progressPayload(s.currentTime, finite(s.duration), this.#watched));
  }

  #stopPlaying(): void {
    this.#playing = false;
    if (this.#progressTimer !== null) clearInterval(this.#progressTimer);
    this.#progressTimer = null;
  }

  #emit<K extends PlaybackType>(type: K, payload: PayloadOf<K>, fields: RowFields = {}): void {
    this.#o.emit(type, { ...payload, source: this.#o.source }, { video_id: this.#o.videoId, ...fields });
  }
}
