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
import { loadYouTubeApi, YT_STATE, type YTPlayer, youTubeIdOf } from "./youtube-api.ts";

export interface YouTubePlayerProps extends PlayerProps {
  /** Poll interval, clamped to 250..1000 ms. */
  readonly pollMs?: number;
  /** The iframe API script (default: `window.FEEDLAB_YOUTUBE_API_URL`, else the provider's). */
  readonly apiUrl?: string;
}

/** The adapter's name for each of the API's player states. */
const STATE_OF: Record<number, Observation["state"]> = {
  [YT_STATE.PLAYING]: "playing",
  [YT_STATE.PAUSED]: "paused",
  [YT_STATE.ENDED]: "ended",
  [YT_STATE.BUFFERING]: "buffering",
};

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
  const interval = pollInterval(pollMs);
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
      state: STATE_OF[p.getPlayerState()] ?? "idle",
      time: p.getCurrentTime() || 0,
      duration: p.getDuration() || 0,
      rate: p.getPlaybackRate() || 1,
      volume: (p.getVolume() ?? 100) / 100,
      muted: Boolean(p.isMuted()),
    });
    const read = () => mediaStateOf(polling ?? (player ? observe(player) : last));
    const tracker = runtime.core.tracker;
    const playback = new PlaybackTracker({
      videoId: video.external_id,
      source: "youtube",
      read,
      emit: (type, payload, fields) => tracker.track(type, payload, fields),
      maxTickGapSec: (2.5 * interval) / 1000,
    });

    // The survey gate hears whether the provider's player plays, and may pause it (a survey is open).
    const state = playbackState.register(() => player?.pauseVideo());

    const poll = () => {
      if (!player || !live) return;
      const now = observe(player);
      polling = now;
      try {
        derive(playback, last, now, interval);
      } finally {
        last = now;
        polling = null;
      }
      // After the reading is stored: a pause asked for here may call back into a new poll at once.
      state.report(playingIn(now));
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
          toggleFullscreen: () => toggleFullscreenOf(container),
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
      state.release();
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
          {t("player.unplayable")} <a href={video.url}>{t("player.openOn", { site: "YouTube" })}</a>
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
