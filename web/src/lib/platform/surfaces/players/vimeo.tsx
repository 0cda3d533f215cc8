import { useEffect, useRef, useState } from "preact/hooks";
import { t } from "../../../i18n/messages.svelte.ts";
import { useRuntime } from "../../context.ts";
import { PlaybackTracker } from "../../tracking/playback.ts";
import {
  listenForFullscreen,
  listenForShortcuts,
  type PlayerControls,
  toggleFullscreenOf,
} from "./controls.ts";
import type { PlayerProps } from "./native.tsx";
import { playbackState } from "./playback-state.ts";
import { derive, mediaStateOf, type Observation, playingIn, pollInterval } from "./polled.ts";
import { loadVimeoApi, type VimeoApiPlayer, vimeoIdOf } from "./vimeo-api.ts";

export interface VimeoPlayerProps extends PlayerProps {
  /** Poll interval, clamped to 250..1000 ms. */
  readonly pollMs?: number;
  /** The Player API script (default: `window.FEEDLAB_VIMEO_API_URL`, else the provider's). */
  readonly apiUrl?: string;
}

/**
 * The Vimeo adapter (spec: Embedded third-party video players), built like the YouTube one: the
 * provider's iframe cannot be observed, so the adapter reads Vimeo's Player API (its getters answer
 * promises) on every poll and on the API's events, and derives the playback events from what changed
 * (polled.ts): VIDEO_PLAY, VIDEO_PAUSE, VIDEO_ENDED, VIDEO_BUFFERING, VIDEO_SEEK (a jump of the
 * playhead; the API's `seeked` event starts a reading at once), PLAYBACK_RATE_CHANGE, VOLUME_CHANGE,
 * and watched time with the 1 s / 5 s thresholds. Every payload says `source: "vimeo"`; times are as
 * precise as the poll interval and the API's asynchronous answers. The player is embedded with
 * `dnt=1` (Vimeo sets no tracking cookies for participants).
 */
export function VimeoPlayer({ video, autoplay = true, className, pollMs, apiUrl }: VimeoPlayerProps) {
  const runtime = useRuntime();
  const box = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLIFrameElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const interval = pollInterval(pollMs);
  const providerId = vimeoIdOf(video.resolved_url) ?? vimeoIdOf(video.url);
  const src = providerId
    ? `https://player.vimeo.com/video/${providerId}?autoplay=${autoplay ? 1 : 0}&playsinline=1&dnt=1`
    : null;

  useEffect(() => {
    const container = box.current;
    const iframe = frame.current;
    if (!container || !iframe || !providerId) return;
    let live = true;
    let player: VimeoApiPlayer | null = null;
    let timer: ReturnType<typeof setInterval> | null = null;
    let last: Observation | null = null;
    let reading: Promise<void> | null = null;
    let again = false;
    const cleanups: (() => void)[] = [];

    const tracker = runtime.core.tracker;
    const playback = new PlaybackTracker({
      videoId: video.external_id,
      source: "vimeo",
      read: () => mediaStateOf(last),
      emit: (type, payload, fields) => tracker.track(type, payload, fields),
      maxTickGapSec: (2.5 * interval) / 1000,
    });

    const observe = async (p: VimeoApiPlayer): Promise<Observation> => {
      const [time, duration, paused, ended, rate, volume, muted] = await Promise.all([
        p.getCurrentTime(),
        p.getDuration(),
        p.getPaused(),
        p.getEnded(),
        p.getPlaybackRate(),
        p.getVolume(),
        p.getMuted ? p.getMuted() : Promise.resolve(false),
      ]);
      return {
        at: performance.now(),
        state: ended ? "ended" : paused ? "paused" : buffering ? "buffering" : "playing",
        time: time || 0,
        duration: duration || 0,
        rate: rate || 1,
        volume: volume ?? 1,
        muted: Boolean(muted),
      };
    };
    /** Buffering has no getter: the API's bufferstart/bufferend events say when. */
    let buffering = false;

    // The survey gate hears whether the provider's player plays, and may pause it (a survey is open).
    const state = playbackState.register(() => void player?.pause().catch(() => undefined));

    /** One reading at a time, in order; a reading asked for during one follows it. */
    const poll = (): Promise<void> => {
      if (!player || !live) return Promise.resolve();
      if (reading) {
        again = true;
        return reading;
      }
      const p = player;
      reading = observe(p)
        .then((now) => {
          if (!live) return;
          const prev = last;
          last = now;
          derive(playback, prev, now, interval);
          state.report(playingIn(now));
        })
        .catch((error: unknown) => console.error("feedlab: reading the Vimeo player failed", error))
        .finally(() => {
          reading = null;
          if (again && live) {
            again = false;
            void poll();
          }
        });
      return reading;
    };

    loadVimeoApi(apiUrl)
      .then(async (Vimeo) => {
        if (!live) return;
        const p = new Vimeo.Player(iframe);
        player = p;
        for (const event of [
          "play",
          "playing",
          "pause",
          "ended",
          "seeked",
          "volumechange",
          "playbackratechange",
        ])
          p.on(event, () => void poll());
        p.on("bufferstart", () => {
          buffering = true;
          void poll();
        });
        p.on("bufferend", () => {
          buffering = false;
          void poll();
        });
        await p.ready();
        if (!live) return;
        await poll();
        timer = setInterval(() => void poll(), interval);
        const controls: PlayerControls = {
          togglePlay: () => void (last?.state === "playing" ? p.pause() : p.play()).catch(() => undefined),
          seekTo: (s) => void p.setCurrentTime(s).catch(() => undefined),
          currentTime: () => last?.time ?? 0,
          duration: () => last?.duration ?? 0,
          volume: () => last?.volume ?? 1,
          setVolume: (v) => {
            void p.setVolume(v).catch(() => undefined);
            if (v > 0 && last?.muted) void p.setMuted?.(false).catch(() => undefined);
          },
          toggleMute: () => void p.setMuted?.(!last?.muted).catch(() => undefined),
          rate: () => last?.rate ?? 1,
          setRate: (r) => void p.setPlaybackRate(r).catch(() => undefined),
          toggleFullscreen: () => toggleFullscreenOf(container),
        };
        cleanups.push(listenForShortcuts(container, controls, playback));
        runtime.player = { videoId: video.external_id, currentTime: () => last?.time ?? 0 };
      })
      .catch((error: unknown) => {
        console.error(error);
        if (live) setFailed(error instanceof Error ? error.message : String(error));
      });

    cleanups.push(listenForFullscreen(container, playback));
    cleanups.push(runtime.core.onLeave(() => playback.dispose()));
    return () => {
      live = false;
      playback.dispose();
      state.release();
      if (timer !== null) clearInterval(timer);
      for (const undo of cleanups) undo();
      if (runtime.player?.videoId === video.external_id) runtime.player = null;
      void player?.destroy().catch(() => undefined);
    };
  }, [runtime, video.id, providerId, interval, apiUrl]);

  return (
    <div ref={box} className={className} data-feedlab-player="vimeo">
      {failed || !src ? (
        <div role="alert" data-feedlab-player-error>
          {t("player.unplayable")} <a href={video.url}>{t("player.openOn", { site: "Vimeo" })}</a>
        </div>
      ) : (
        <iframe
          ref={frame}
          src={src}
          title={video.title}
          allow="autoplay; fullscreen; picture-in-picture"
          allowFullScreen
          style={{ width: "100%", height: "100%", border: 0 }}
        />
      )}
    </div>
  );
}
