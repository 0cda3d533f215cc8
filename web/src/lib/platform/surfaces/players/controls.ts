import type { PlaybackTracker } from "../../tracking/playback.ts";

/** What a keyboard shortcut can ask of a player, whatever renders the video. */
export interface PlayerControls {
  togglePlay(): void;
  seekTo(seconds: number): void;
  currentTime(): number;
  duration(): number;
  volume(): number;
  setVolume(volume: number): void;
  toggleMute(): void;
  rate(): number;
  setRate(rate: number): void;
  toggleFullscreen(): void;
}

const RATES = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2] as const;

interface Shortcut {
  readonly action: string;
  /** Only when the keyboard focus is inside the player (the page scrolls with these keys otherwise). */
  readonly focused?: boolean;
  run(c: PlayerControls, key: string): void;
}

const seekBy = (c: PlayerControls, delta: number) =>
  c.seekTo(Math.min(Math.max(0, c.currentTime() + delta), c.duration() || Number.POSITIVE_INFINITY));
const nextRate = (c: PlayerControls, direction: 1 | -1) => {
  const i = RATES.findIndex((r) => r >= c.rate() - 1e-9);
  const at = i < 0 ? RATES.length - 1 : i;
  return RATES[Math.min(RATES.length - 1, Math.max(0, at + direction))] ?? 1;
};

/**
 * The watch page's keyboard shortcuts, as video sites have them: space or k play/pause, j/l and the
 * arrows seek, 0-9 jump to a tenth, Home/End, m mute, f fullscreen, Shift+. / Shift+, speed, and the
 * up/down arrows volume (only with the focus in the player). Keys typed into a field, and Space on a
 * focused button or link, do what they do there instead.
 */
const SHORTCUTS: Record<string, Shortcut> = {
  " ": { action: "toggle_play", run: (c) => c.togglePlay() },
  k: { action: "toggle_play", run: (c) => c.togglePlay() },
  j: { action: "seek_backward_10", run: (c) => seekBy(c, -10) },
  l: { action: "seek_forward_10", run: (c) => seekBy(c, 10) },
  ArrowLeft: { action: "seek_backward_5", run: (c) => seekBy(c, -5) },
  ArrowRight: { action: "seek_forward_5", run: (c) => seekBy(c, 5) },
  ArrowUp: { action: "volume_up", focused: true, run: (c) => c.setVolume(Math.min(1, c.volume() + 0.05)) },
  ArrowDown: {
    action: "volume_down",
    focused: true,
    run: (c) => c.setVolume(Math.max(0, c.volume() - 0.05)),
  },
  m: { action: "toggle_mute", run: (c) => c.toggleMute() },
  f: { action: "toggle_fullscreen", run: (c) => c.toggleFullscreen() },
  ">": { action: "speed_up", run: (c) => c.setRate(nextRate(c, 1)) },
  "<": { action: "speed_down", run: (c) => c.setRate(nextRate(c, -1)) },
  Home: { action: "seek_start", run: (c) => c.seekTo(0) },
  End: { action: "seek_end", run: (c) => c.seekTo(Math.max(0, c.duration() - 0.05)) },
};
for (let d = 0; d <= 9; d++) {
  SHORTCUTS[String(d)] = {
    action: `seek_to_${d * 10}_percent`,
    run: (c) => c.seekTo((c.duration() * d) / 10),
  };
}

/** The key belongs to what has focus: typing into a field, or Space on a button or link. */
function ownedByTarget(target: EventTarget | null, player: Element, key: string): boolean {
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLVideoElement && player.contains(target)) return false;
  if (target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']")) return true;
  return key === " " && target.closest("button, a[href], summary, [role='button'], [role='link']") !== null;
}

/**
 * Listens for the shortcuts on the document while a watch player is mounted; each one it acts on is
 * reported as KEYBOARD_SHORTCUT. Returns the function that stops listening.
 */
export function listenForShortcuts(
  player: Element,
  controls: PlayerControls,
  playback: PlaybackTracker,
): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.altKey || e.metaKey || e.ctrlKey) return;
    const shortcut = SHORTCUTS[e.key.length === 1 ? e.key.toLowerCase() : e.key];
    if (!shortcut || ownedByTarget(e.target, player, e.key)) return;
    if (shortcut.focused && !player.contains(document.activeElement)) return;
    e.preventDefault();
    // The report says where the player was when the key was pressed.
    playback.shortcut(e.key, shortcut.action, { shiftKey: e.shiftKey, ctrlKey: e.ctrlKey });
    shortcut.run(controls, e.key);
  };
  document.addEventListener("keydown", onKey, true);
  return () => document.removeEventListener("keydown", onKey, true);
}

/** FULLSCREEN_CHANGE for a player: entering and leaving fullscreen of the player or anything in it. */
export function listenForFullscreen(player: Element, playback: PlaybackTracker): () => void {
  let inside = false;
  const onChange = () => {
    const el = document.fullscreenElement;
    const now = el !== null && (player.contains(el) || el.contains(player));
    if (now === inside) return;
    inside = now;
    playback.fullscreen(now);
  };
  document.addEventListener("fullscreenchange", onChange);
  return () => document.removeEventListener("fullscreenchange", onChange);
}

/** Fullscreen on `container` (a provider's player with the page's controls), or out of it. */
export function toggleFullscreenOf(container: HTMLElement): void {
  if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
  else void container.requestFullscreen().catch(() => undefined);
}
