/** The provider's iframe API script. */
const YOUTUBE_API_URL = "https://www.youtube.com/iframe_api";

/** The part of the YouTube IFrame Player API the adapter uses. */
export interface YTPlayer {
  playVideo(): void;
  pauseVideo(): void;
  seekTo(seconds: number, allowSeekAhead: boolean): void;
  getCurrentTime(): number;
  getDuration(): number;
  getPlayerState(): number;
  getVolume(): number;
  setVolume(volume: number): void;
  isMuted(): boolean;
  mute(): void;
  unMute(): void;
  getPlaybackRate(): number;
  setPlaybackRate(rate: number): void;
  getIframe?(): HTMLIFrameElement;
  destroy(): void;
}

interface YTPlayerOptions {
  videoId: string;
  width?: string | number;
  height?: string | number;
  playerVars?: Record<string, string | number>;
  events?: {
    onReady?: (event: { target: YTPlayer }) => void;
    onStateChange?: (event: { data: number; target: YTPlayer }) => void;
    onPlaybackRateChange?: (event: { data: number }) => void;
    onError?: (event: { data: number }) => void;
  };
}

export interface YTNamespace {
  Player: new (element: HTMLElement | string, options: YTPlayerOptions) => YTPlayer;
  PlayerState: { UNSTARTED: -1; ENDED: 0; PLAYING: 1; PAUSED: 2; BUFFERING: 3; CUED: 5 };
}

/** The player states of the API (`YT.PlayerState`). */
export const YT_STATE = { UNSTARTED: -1, ENDED: 0, PLAYING: 1, PAUSED: 2, BUFFERING: 3, CUED: 5 } as const;

declare global {
  interface Window {
    YT?: Partial<YTNamespace>;
    onYouTubeIframeAPIReady?: () => void;
    /** Overrides the iframe API's script URL (a test serving a fake of the API, a self-hosted mirror). */
    FEEDLAB_YOUTUBE_API_URL?: string;
  }
}

let loading: Promise<YTNamespace> | null = null;

/**
 * Loads the provider's iframe API once per page and resolves when `YT.Player` is usable. The script
 * URL is `url`, else `window.FEEDLAB_YOUTUBE_API_URL`, else the provider's.
 */
export function loadYouTubeApi(url?: string): Promise<YTNamespace> {
  const ready = () => (window.YT?.Player ? (window.YT as YTNamespace) : null);
  const now = ready();
  if (now) return Promise.resolve(now);
  loading ??= new Promise<YTNamespace>((resolve, reject) => {
    const previous = window.onYouTubeIframeAPIReady;
    window.onYouTubeIframeAPIReady = () => {
      previous?.();
      const yt = ready();
      if (yt) resolve(yt);
      else reject(new Error("The YouTube iframe API loaded without YT.Player."));
    };
    const script = document.createElement("script");
    script.src = url ?? window.FEEDLAB_YOUTUBE_API_URL ?? YOUTUBE_API_URL;
    script.async = true;
    script.onerror = () => {
      loading = null;
      script.remove();
      reject(new Error(`Could not load the YouTube iframe API from ${script.src}.`));
    };
    document.head.append(script);
  });
  return loading;
}

/** The provider's id of a video from its URL (watch, short link, embed and shorts forms), or null. */
export function youTubeIdOf(url: string): string | null {
  try {
    const u = new URL(url);
    const fromQuery = u.searchParams.get("v");
    const segments = u.pathname.split("/").filter(Boolean);
    const id = fromQuery ?? (u.hostname.endsWith("youtu.be") ? segments[0] : segments.at(-1));
    return id && /^[A-Za-z0-9_-]{11}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}
