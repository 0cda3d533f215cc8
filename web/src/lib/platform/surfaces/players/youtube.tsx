import { useEffect, useRef, useState } from "preact/hooks";
import { useRuntime } from "../../context.ts";
import { type MediaState, PlaybackTracker } from "../../tracking/playback.ts";
import { listenForFullscreen, listenForShortcuts, type PlayerControls } from "./controls.ts";
import type { PlayerProps } from "./native.tsx";
import { loadYouTubeApi, YT_STATE, type YTPlayer, youTubeIdOf } from "./youtube-api.ts";

/** Spec: an adapter polls the provider's player every 250 to 1000 ms. */
export const MIN_POLL_MS = 250;
export const MAX_POLL_MS = 1000;
export const DEFAULT_POLL_MS = 500;

export interface YouTubePlayerProps extends PlayerProps {
  /** Poll interval, clamped to 250..1000 ms. */
  readonly pollMs?: number;
  /** The iframe API script (default: `window.FEEDLAB_YOUTUBE_API_URL`, else the provider's). */
  readonly apiUrl?: string;
}

interface Observation {
  readonly at: number;
  readonly state: number;
  readonly time: number;
  readonly rate: number;
  readonly volume: number;
  readonly muted: boolean;
}

/**
 * The YouTube adapter (spec: Embedded third-party video players). The provider's iframe cannot be
 * observed directly, so the adapter polls the iframe API and derives the same playback events the
 * native player emits, through the same tracker:
 * - state changes (playing, paused, ended, buffering) become VIDEO_PLAY, VIDEO_PAUSE, VIDEO_ENDED and
 *   VIDEO_BUFFERING, checked on every poll and on the API's state-change callback;
 * - a jump of the current time away from where playback should be is a VIDEO_SEEK, from the last polled
 *   position to the new one;
 * - volume, mute and rate differences between polls are VOLUME_CHANGE and PLAYBACK_RATE_CHANGE
 *   (intermediate values between two polls are missed);
 * - watched time and the 1 s / 5 s thresholds advance with the polls.
 * Every payload says `source: "youtube"`; timestamps are only as precise as the poll interval.
 * Keyboard shortcuts work while the focus is on the page; the iframe keeps keys it has focus for.
 */
export function YouTubePlayer({ video, autoplay = true, className, pollMs, apiUrl }: YouTubePlayerProps) {
  const runtime = useRuntime();
  const box = useRef<HTMLDivElement>(null);
  const mount = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const interval = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, pollMs ?? DEFAULT_POLL_MS));
  const providerId = youTubeIdOf(video.resolved_url) ?? youTubeIdOf(video.url);

  useEffect(() => {
    const container = box.current;
    const target = mount.current;
    if (!container || !target || !providerId) return;
    let live = true;
    let player: YTPlayer | null = null;
    let timer: ReturnType<typeof setInterval> | null = null;
    let last: Observation | null = null;
    /** The observation of the poll under way: the tracker reads it instead of asking the API again. */
    let polling: Observation | null = null;
    const cleanups: (() => void)[] = [];

    const observe = (p: YTPlayer): Observation => ({
      at: performance.now(),
      state: p.getPlayerState(),
      time: p.getCurrentTime() || 0,
      rate: p.getPlaybackRate() || 1,
      volume: (p.getVolume() ?? 100) / 100,
      muted: Boolean(p.isMuted()),
    });
    const read = (): MediaState => {
      const o = polling ?? (player ? observe(player) : last);
      const duration = player?.getDuration() || 0;
      return {
        currentTime: o?.time ?? 0,
        duration,
        paused: o ? o.state !== YT_STATE.PLAYING && o.state !== YT_STATE.BUFFERING : true,
        ended: o?.state === YT_STATE.ENDED,
        playbackRate: o?.rate ?? 1,
        volume: o?.volume ?? 1,
        muted: o?.muted ?? false,
        // Derived: the API has no ready or network state; buffering reads as a stalled element would.
        readyState: o?.state === YT_STATE.BUFFERING ? 2 : 4,
        networkState: o?.state === YT_STATE.BUFFERING ? 2 : 1,
      };
    };
    const tracker = runtime.core.tracker;
    const playback = new PlaybackTracker({
      videoId: video.external_id,
      source: "youtube",
      read,
      emit: (type, payload, fields) => tracker.track(type, payload, fields),
      maxTickGapSec: (2.5 * interval) / 1000,
    });

    const poll = () => {
      if (!player || !live) return;
      const now = observe(player);
      polling = now;
      try {
        derive(now);
      } finally {
        polling = null;
      }
    };
    const derive = (now: Observation) => {
      const prev = last;
      last = now;
      if (!prev) {
        playback.ready();
        if (now.state === YT_STATE.PLAYING) playback.play();
        return;
      }
      // A jump: the time is not where the previous poll and the elapsed time put it.
      const elapsed = (now.at - prev.at) / 1000;
      const expected = prev.time + (prev.state === YT_STATE.PLAYING ? elapsed * prev.rate : 0);
      const tolerance = Math.max(1, 1.5 * (interval / 1000) * prev.rate);
      const jumped = Math.abs(now.time - expected) > tolerance && now.state !== YT_STATE.ENDED;
      if (jumped) playback.seek(prev.time, now.time);
      if (now.state !== prev.state) {
        if (now.state === YT_STATE.PLAYING) playback.play();
        else if (now.state === YT_STATE.PAUSED) playback.pause();
        else if (now.state === YT_STATE.ENDED) playback.ended();
        else if (now.state === YT_STATE.BUFFERING) playback.waiting();
      }
      playback.tick();
      if (now.rate !== prev.rate) playback.rateChanged();
      if (now.volume !== prev.volume || now.muted !== prev.muted) playback.volumeChanged();
    };

    loadYouTubeApi(apiUrl)
      .then((YT) => {
        if (!live) return;
        player = new YT.Player(target, {
          videoId: providerId,
          width: "100%",
          height: "100%",
          playerVars: {
            autoplay: autoplay ? 1 : 0,
            playsinline: 1,
            rel: 0,
            enablejsapi: 1,
            origin: location.origin,
          },
          events: {
            onReady: () => {
              if (!live) return;
              poll();
              timer = setInterval(poll, interval);
            },
            onStateChange: () => poll(),
            onPlaybackRateChange: () => poll(),
          },
        });
        const p = player;
        const controls: PlayerControls = {
          togglePlay: () => (p.getPlayerState() === YT_STATE.PLAYING ? p.pauseVideo() : p.playVideo()),
          seekTo: (s) => p.seekTo(s, true),
          currentTime: () => p.getCurrentTime() || 0,
          duration: () => p.getDuration() || 0,
          volume: () => (p.getVolume() ?? 100) / 100,
          setVolume: (v) => {
            p.setVolume(Math.round(v * 100));
            if (v > 0 && p.isMuted()) p.unMute();
          },
          toggleMute: () => (p.isMuted() ? p.unMute() : p.mute()),
          rate: () => p.getPlaybackRate() || 1,
          setRate: (r) => p.setPlaybackRate(r),
          toggleFullscreen: () =>
            document.fullscreenElement
              ? void document.exitFullscreen().catch(() => undefined)
              : void container.requestFullscreen().catch(() => undefined),
        };
        cleanups.push(listenForShortcuts(container, controls, playback));
        runtime.player = { videoId: video.external_id, currentTime: () => p.getCurrentTime() || 0 };
      })
      .catch((error: unknown) => {
        console.error(error);
        if (live) setFailed(error instanceof Error ? error.message : String(error));
      });

    cleanups.push(listenForFullscreen(container, playback));
    cleanups.push(
      runtime.core.onLeave(() => {
        poll();
        playback.dispose();
      }),
    );
    return () => {
      poll();
      live = false;
      playback.dispose();
      if (timer !== null) clearInterval(timer);
      for (const undo of cleanups) undo();
      if (runtime.player?.videoId === video.external_id) runtime.player = null;
      try {
        player?.destroy();
      } catch {
        // The provider's player may already be gone with its iframe.
      }
    };
  }, [runtime, video.id, providerId, interval, apiUrl]);

  return (
    <div ref={box} className={className} data-feedlab-player="youtube">
      {failed || !providerId ? (
        <div role="alert" data-feedlab-player-error>
          This video cannot be played here. <a href={video.url}>Open it on YouTube</a>
        </div>
      ) : (
        // The API replaces this element with the provider's iframe; the wrapper keeps Preact's node.
        <div>
          <div ref={mount} />
        </div>
      )}
    </div>
  );
}
