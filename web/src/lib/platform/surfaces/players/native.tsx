import { useEffect, useRef } from "preact/hooks";
import { captionName } from "../../../i18n/format.ts";
import { t } from "../../../i18n/messages.svelte.ts";
import type { Video } from "../../../types.ts";
import { useRuntime } from "../../context.ts";
import { type MediaState, PlaybackTracker } from "../../tracking/playback.ts";
import { listenForFullscreen, listenForShortcuts, type PlayerControls } from "./controls.ts";
import { playbackState } from "./playback-state.ts";

export interface PlayerProps {
  readonly video: Video;
  /** Start playing on mount (the browser may refuse sound without a prior click: then it waits). */
  readonly autoplay?: boolean;
  readonly className?: string;
}

function stateOf(el: HTMLVideoElement): MediaState {
  return {
    currentTime: el.currentTime,
    duration: Number.isFinite(el.duration) ? el.duration : 0,
    paused: el.paused,
    ended: el.ended,
    playbackRate: el.playbackRate,
    volume: el.volume,
    muted: el.muted,
    readyState: el.readyState,
    networkState: el.networkState,
    seeking: el.seeking,
  };
}

type FrameVideo = HTMLVideoElement & {
  requestVideoFrameCallback?: (cb: () => void) => number;
  cancelVideoFrameCallback?: (handle: number) => void;
};

/**
 * The bundled player: a native `<video>` with the browser's controls. It observes the element
 * directly, so its playback events are frame-precise: the playhead is read on every presented frame
 * (`requestVideoFrameCallback`, else `timeupdate`), seeks come from `seeking`/`seeked`.
 */
export function NativePlayer({ video, autoplay = true, className }: PlayerProps) {
  const runtime = useRuntime();
  const box = useRef<HTMLDivElement>(null);
  const ref = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    const el = ref.current as FrameVideo | null;
    const container = box.current;
    if (!el || !container) return;
    const tracker = runtime.core.tracker;
    const playback = new PlaybackTracker({
      videoId: video.external_id,
      source: "native",
      read: () => stateOf(el),
      emit: (type, payload, fields) => tracker.track(type, payload, fields),
      maxTickGapSec: 1,
    });

    // The survey gate hears whether the element plays, and may pause it (a survey is open).
    const state = playbackState.register(() => el.pause());
    const report = () => state.report(!el.paused && !el.ended);

    let frame: number | null = null;
    const onFrame = () => {
      frame = null;
      playback.tick();
      if (!el.paused && !el.ended) frame = el.requestVideoFrameCallback?.(onFrame) ?? null;
    };
    const on: Record<string, () => void> = {
      loadedmetadata: () => playback.ready(),
      play: () => {
        playback.play();
        report();
      },
      playing: () => {
        playback.play();
        if (frame === null) frame = el.requestVideoFrameCallback?.(onFrame) ?? null;
        report();
      },
      pause: () => {
        playback.pause();
        report();
      },
      emptied: report,
      timeupdate: () => playback.tick(),
      seeking: () => playback.seeking(),
      seeked: () => playback.seeked(),
      ended: () => {
        playback.ended();
        report();
      },
      waiting: () => playback.waiting(),
      ratechange: () => playback.rateChanged(),
      volumechange: () => playback.volumeChanged(),
    };
    for (const [type, fn] of Object.entries(on)) el.addEventListener(type, fn);
    if (el.readyState >= 1) playback.ready();
    report();

    const controls: PlayerControls = {
      togglePlay: () => (el.paused || el.ended ? void el.play().catch(() => undefined) : el.pause()),
      seekTo: (s) => {
        el.currentTime = s;
      },
      currentTime: () => el.currentTime,
      duration: () => (Number.isFinite(el.duration) ? el.duration : 0),
      volume: () => el.volume,
      setVolume: (v) => {
        el.volume = v;
        if (v > 0 && el.muted) el.muted = false;
      },
      toggleMute: () => {
        el.muted = !el.muted;
      },
      rate: () => el.playbackRate,
      setRate: (r) => {
        el.playbackRate = r;
      },
      toggleFullscreen: () =>
        document.fullscreenElement
          ? void document.exitFullscreen().catch(() => undefined)
          : void el.requestFullscreen().catch(() => undefined),
    };
    const unKeys = listenForShortcuts(container, controls, playback);
    const unFullscreen = listenForFullscreen(container, playback);
    const unLeave = runtime.core.onLeave(() => playback.dispose());
    runtime.player = { videoId: video.external_id, currentTime: () => el.currentTime };
    if (autoplay) void el.play().catch(() => undefined);

    return () => {
      playback.dispose();
      state.release();
      for (const [type, fn] of Object.entries(on)) el.removeEventListener(type, fn);
      if (frame !== null) el.cancelVideoFrameCallback?.(frame);
      unKeys();
      unFullscreen();
      unLeave();
      if (runtime.player?.videoId === video.external_id) runtime.player = null;
    };
  }, [runtime, video.id]);

  return (
    <div ref={box} className={className} data-feedlab-player="native">
      {/* biome-ignore lint/a11y/useMediaCaption: the tracks are the video's own (none when it has none). */}
      <video
        ref={ref}
        src={video.resolved_url}
        poster={video.thumbnail_url ?? undefined}
        controls
        playsInline
        preload="auto"
        aria-label={t("player.label", { title: video.title })}
      >
        {(video.captions ?? []).map((c) => (
          <track
            key={c.url}
            kind="captions"
            src={c.url}
            srcLang={c.lang}
            label={c.label ?? captionName(c.lang)}
          />
        ))}
      </video>
    </div>
  );
}
