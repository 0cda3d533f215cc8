import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

/**
 * Where Chromium usually is on Linux, lightest first; `FEEDLAB_CHROMIUM` names another. The headless
 * shell (Debian's `chromium-headless-shell`) is the same Blink and V8 without the browser's windows and
 * tabs: a new page and its first load cost 0.12 CPU-seconds there against 0.45 in `chromium --headless`,
 * and a playing 240p clip 0.11 of a core against 0.15 (measured here on 2026-12-02).
 */
const CHROMIUM_PATHS = [
  "/usr/bin/chromium-headless-shell",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

/**
 * Flags for a server: no sandbox (it needs user namespaces, which containers often lack), no GPU, none
 * of the background traffic (updates, sync, QUIC) a closed network refuses, and videos that play
 * without a gesture (the simulated participant's click starts them).
 */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--autoplay-policy=no-user-gesture-required",
];

/** The Chromium a browser dry run drives, or null when the machine has none. */
export function findChromium(configured: string | null): string | null {
  if (configured) return existsSync(configured) ? configured : null;
  return CHROMIUM_PATHS.find((p) => existsSync(p)) ?? null;
}

/**
 * Launches headless Chromium (the machine's: nothing is downloaded). Playwright is loaded here, by the
 * first browser dry run, not when the server starts: its modules took a tenth of the api's import.
 */
export async function launchChromium(configured: string | null): Promise<Browser> {
  const executablePath = findChromium(configured);
  if (executablePath === null) throw new Error("Chromium is not installed on this server.");
  const { chromium } = await import("playwright-core");
  return chromium.launch({ headless: true, executablePath, args: CHROMIUM_ARGS });
}
