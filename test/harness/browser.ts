import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Browser,
  chromium,
  type Download,
  type LaunchOptions,
  type Locator,
  type Page,
} from "playwright-core";
import { inject } from "vitest";
import { findChromium } from "../../api/src/simulation/drive/chromium.ts";
import { ADMIN } from "./app.ts";

/**
 * The browser the tests drive: the machine's, found as a browser dry run finds it (Debian's headless
 * shell first, then `chromium`); FEEDLAB_CHROMIUM points elsewhere.
 */
const chromiumPath = findChromium(process.env.FEEDLAB_CHROMIUM?.trim() || null);

/**
 * Debian's `chromium`, the whole browser in headless mode: closer to a participant's than the headless
 * shell the tests drive, for the benchmarks' measures of participants' pages and the tests that need
 * windows (a tab switch that moves window focus).
 */
export const FULL_CHROMIUM = "/usr/bin/chromium";

/** Where screenshots go; `test-results/` at the repository root is gitignored. */
export const resultsDir = fileURLToPath(new URL("../../test-results/", import.meta.url));

/**
 * Flags for a root user in a container on a small machine: no sandbox (it needs user namespaces),
 * no GPU, and none of the background traffic (updates, sync, QUIC) that makes runs flaky offline.
 */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Headless Chromium's launch options: `options.args` are added to the defaults. */
export function chromiumLaunchOptions(options: LaunchOptions = {}): LaunchOptions {
  if (chromiumPath === null && !options.executablePath)
    throw new Error(
      "No Chromium: apt-get install -y chromium-headless-shell chromium, or set FEEDLAB_CHROMIUM to its path",
    );
  return {
    headless: true,
    executablePath: chromiumPath ?? undefined,
    ...options,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  };
}

/**
 * Headless Chromium for a test file; close it in `afterAll`. Without options it is a connection to
 * the run's shared browser (browser-server.ts, in the e2e project), whose contexts close with it;
 * with options (extra flags), or outside that project, a browser of its own.
 */
export function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const shared = Object.keys(options).length === 0 ? sharedEndpoint() : undefined;
  return shared ? chromium.connect(shared) : chromium.launch(chromiumLaunchOptions(options));
}

function sharedEndpoint(): string | undefined {
  try {
    return inject("browserEndpoint");
  } catch {
    return undefined; // not in a vitest worker (a benchmark, a script)
  }
}

/**
 * Resizes the page's window and waits two frames, so what reacts to the new size (resize observers,
 * the state they set) has rendered before the test looks: as a person sees the page after a resize.
 */
export async function resizeTo(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/**
 * A download's bytes, from a browser of this process or a connection to the run's shared one
 * (`Download.path()` exists only for the first; `saveAs` streams the file to this process either way).
 */
export async function downloadedBytes(download: Download): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "feedlab-download-"));
  try {
    const file = join(dir, download.suggestedFilename());
    await download.saveAs(file);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Saves a full-page PNG as `test-results/<name>.png` and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name.replace(/[^a-zA-Z0-9._-]+/g, "-")}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs the test admin in to the console at `baseUrl` and waits for the experiments list. */
export async function signInToConsole(
  page: Page,
  baseUrl: string,
  account: { readonly username: string; readonly password: string } = ADMIN,
): Promise<void> {
  await page.goto(`${baseUrl}/admin/login`);
  await page.getByLabel("Username").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Experiments", exact: true }).waitFor();
}

/**
 * A part of the page as a PNG in test-results/, for the docs (a whole page is mostly other sections), without the console's sticky header or a toast over it.
 */
export async function savePart(part: Locator, name: string): Promise<void> {
  const hide = (hidden: boolean) =>
    part.page().evaluate((h) => {
      const header = document.querySelector<HTMLElement>("header");
      const toasts = document.querySelector<HTMLElement>(".toasts");
      if (header) header.style.position = h ? "static" : "";
      if (toasts) toasts.style.visibility = h ? "hidden" : "";
    }, hidden);
  await hide(true);
  await part.screenshot({ path: join(resultsDir, `${name}.png`) });
  await hide(false);
}
