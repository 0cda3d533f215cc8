/** The provider's Player API script (player.js). */
const VIMEO_API_URL = "https://player.vimeo.com/api/player.js";

/** What the adapter uses of Vimeo's Player API: getters answer promises; events carry their data. */
export interface VimeoApiPlayer {
  on(event: string, callback: (data: Record<string, number | undefined>) => void): void;
  ready(): Promise<void>;
  play(): Promise<void>;
  pause(): Promise<void>;
  getCurrentTime(): Promise<number>;
  setCurrentTime(seconds: number): Promise<number>;
  getDuration(): Promise<number>;
  getPaused(): Promise<boolean>;
  getEnded(): Promise<boolean>;
  getVolume(): Promise<number>;
  setVolume(volume: number): Promise<number>;
  getMuted?(): Promise<boolean>;
  setMuted?(muted: boolean): Promise<boolean>;
  getPlaybackRate(): Promise<number>;
  setPlaybackRate(rate: number): Promise<number>;
  destroy(): Promise<void>;
}

export interface VimeoNamespace {
  Player: new (element: HTMLIFrameElement | HTMLElement) => VimeoApiPlayer;
}

declare global {
  interface Window {
    Vimeo?: Partial<VimeoNamespace>;
    /** Overrides the Player API's script URL (a test serving a stand-in, a self-hosted mirror). */
    FEEDLAB_VIMEO_API_URL?: string;
  }
}

let loading: Promise<VimeoNamespace> | null = null;

/** Loads the provider's Player API once per page; resolves when `Vimeo.Player` is usable. */
export function loadVimeoApi(url?: string): Promise<VimeoNamespace> {
  const ready = () => (window.Vimeo?.Player ? (window.Vimeo as VimeoNamespace) : null);
  const now = ready();
  if (now) return Promise.resolve(now);
  loading ??= new Promise<VimeoNamespace>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url ?? window.FEEDLAB_VIMEO_API_URL ?? VIMEO_API_URL;
    script.async = true;
    script.onload = () => {
      const vimeo = ready();
      if (vimeo) resolve(vimeo);
      else {
        loading = null;
        reject(new Error("The Vimeo Player API loaded without Vimeo.Player."));
      }
    };
    script.onerror = () => {
      loading = null;
      script.remove();
      reject(new Error(`Could not load the Vimeo Player API from ${script.src}.`));
    };
    document.head.append(script);
  });
  return loading;
}

/** The provider's id of a video from its page or player URL, or null. */
export function vimeoIdOf(url: string): string | null {
  try {
    const m = new URL(url).pathname.match(/(?:^|\/)(\d{5,})(?:$|\/)/);
    return m?.[1] ?? null;
  } catch {
    return null;
  }
}
