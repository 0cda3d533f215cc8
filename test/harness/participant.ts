import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Video } from "@feedlab/schemas";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { REPO_ROOT } from "../../api/src/app/build.ts";
import { starterSource } from "../../web/src/lib/platform/presets/starters.ts";
import type { Client } from "./app.ts";
import { saveScreenshot } from "./browser.ts";

const PRESET_DIR = path.join(REPO_ROOT, "web", "src", "lib", "platform", "presets");
const presetFile = (name: string) => readFileSync(path.join(PRESET_DIR, name), "utf8");

/** A bundled preset's page as a self-contained code template, the way the console's editor offers it. */
export function presetStarter(preset: string, page: "feed" | "watch"): string {
  const [family, device = "desktop"] = preset.split("-") as [string, string];
  return starterSource(
    {
      shared: presetFile("shared.tsx"),
      parts: presetFile(`${family}-parts.tsx`),
      page: presetFile(`${family}-${page}.tsx`),
    },
    preset,
    page,
    device,
  );
}

/** The demo media files the API serves under /media/demo/ (native videos for browser tests). */
export function demoMedia(): string[] {
  const dir = path.join(REPO_ROOT, "api", "demo", "media");
  const names = readdirSync(dir)
    .filter((f) => f.endsWith(".webm"))
    .map((f) => f.slice(0, -".webm".length))
    .filter((n) => readdirSync(dir).includes(`${n}.jpg`))
    .sort();
  if (names.length === 0) throw new Error(`no demo media in ${dir}`);
  return names;
}

/** Browser viewports for the preset device variants. */
export const VIEWPORTS = {
  desktop: { width: 1366, height: 860 },
  tablet: { width: 834, height: 1112 },
  mobile: { width: 390, height: 844 },
} as const;

export const PRESETS = [
  "grid-desktop",
  "grid-tablet",
  "grid-mobile",
  "list-desktop",
  "list-tablet",
  "list-mobile",
] as const;

export const deviceOf = (preset: string) => (preset.split("-")[1] ?? "desktop") as keyof typeof VIEWPORTS;

export interface ParticipantStudy {
  readonly experimentId: string;
  readonly groupId: string;
  readonly videos: Video[];
}

/**
 * A running experiment with one group on the given UI keys and a pool of native demo videos (the
 * media files repeat under distinct external ids), newest first under the recency recommender.
 */
export async function createParticipantStudy(
  admin: Client,
  options: { ui: { feed: string; watch: string }; videoCount?: number; extra?: Record<string, unknown>[] },
): Promise<ParticipantStudy> {
  const media = demoMedia();
  const tag = Math.random().toString(36).slice(2, 8);
  const exp = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: `Participant ${tag}` });
  const group = await admin.post<{ id: string }>(`/api/v1/admin/experiments/${exp.body.id}/groups`, {
    name: "Arm",
    algorithm_config: { feed: "recency", watch: "recency" },
    ui_config: options.ui,
  });
  if (group.status !== 201) throw new Error(`group: ${group.status} ${JSON.stringify(group.body)}`);
  const count = options.videoCount ?? 26;
  const inputs = Array.from({ length: count }, (_, i) => {
    const name = media[i % media.length] as string;
    return {
      external_id: `${tag}-ext-${i}`,
      url: `/media/demo/${name}.webm`,
      thumbnail_url: `/media/demo/${name}.jpg`,
      title: `${name.replace(/-/g, " ")} #${i + 1}`,
      channel_name: ["Crumb Lab", "Slow Travel", "Code Corner"][i % 3],
      category: "Education",
      description: "What this video is about.\nA second line of description.",
      tags: ["demo", `topic-${i % 4}`],
      duration_seconds: 25,
      view_count: 1000 * (i + 1),
      published_at: new Date(Date.UTC(2026, 5, 1 + i)).toISOString(),
      comments: [
        { author: "ana", text: "Great video!" },
        { author: "ben", text: "Thanks for sharing." },
      ],
    };
  });
  const created = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
    videos: [...inputs, ...(options.extra ?? [])],
  });
  if (created.status !== 201) throw new Error(`videos: ${created.status} ${JSON.stringify(created.body)}`);
  const videos = created.body.videos;
  await admin.put(`/api/v1/admin/experiments/${exp.body.id}/videos`, { video_ids: videos.map((v) => v.id) });
  await admin.patch(`/api/v1/admin/experiments/${exp.body.id}`, { status: "running" });
  return { experimentId: exp.body.id, groupId: group.body.id, videos };
}

/** One event as the browser sent it. */
export interface SentEvent {
  readonly event_id: string;
  readonly event_type: string;
  readonly timestamp: string;
  readonly seq: number;
  readonly video_id?: string;
  readonly watch_ratio?: number;
  readonly watch_duration?: number;
  readonly position_in_feed?: number;
  readonly payload: Record<string, unknown>;
}

/** One `POST /api/v1/events` the browser made. */
export interface SentBatch {
  /** Test clock (ms) when the request arrived. */
  readonly at: number;
  readonly sessionId: string;
  readonly events: SentEvent[];
  /** A `text/plain` body: what `navigator.sendBeacon` sends on unload. */
  readonly beacon: boolean;
  /** The server's status and reply. */
  status: number;
  reply: { accepted?: number; rejected?: unknown[]; position?: string } | null;
}

/**
 * A recording HTTP proxy in front of the app: the browser talks to it, and it records every event
 * batch on its way to the server, including the beacons a page sends as it unloads (which the
 * browser's own instrumentation does not report once the document is gone).
 */
export async function startRecordingProxy(target: string) {
  const batches: SentBatch[] = [];
  const upstream = new URL(target);
  // The app takes changes only from its own pages (api.md "Trust boundaries"): the pages this proxy
  // serves are the app's, so their Origin goes on as the app's, as a deployment's public URL would.
  let url = "";
  const ownPage = (origin: string | undefined) => origin !== undefined && origin === url;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let batch: SentBatch | null = null;
      if (req.method === "POST" && req.url?.split("?")[0] === "/api/v1/events") {
        try {
          const parsed = JSON.parse(body.toString("utf8")) as { session_id: string; events: SentEvent[] };
          batch = {
            at: Date.now(),
            sessionId: parsed.session_id,
            events: parsed.events,
            beacon: (req.headers["content-type"] ?? "").startsWith("text/plain"),
            status: 0,
            reply: null,
          };
          batches.push(batch);
        } catch {
          // Not JSON: the server answers it.
        }
      }
      const forward = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: ownPage(req.headers.origin) ? { ...req.headers, origin: upstream.origin } : req.headers,
        },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          if (!batch) {
            up.pipe(res);
            return;
          }
          const replyChunks: Buffer[] = [];
          up.on("data", (c: Buffer) => replyChunks.push(c));
          up.on("end", () => {
            const text = Buffer.concat(replyChunks);
            if (batch) {
              batch.status = up.statusCode ?? 0;
              try {
                batch.reply = JSON.parse(text.toString("utf8"));
              } catch {
                batch.reply = null;
              }
            }
            res.end(text);
          });
        },
      );
      forward.on("error", () => {
        if (batch) batch.status = 502;
        res.writeHead(502);
        res.end();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const events = () => batches.flatMap((b) => b.events);
  return {
    url,
    batches,
    events,
    types: () => new Set(events().map((e) => e.event_type)),
    ofType: (type: string) => events().filter((e) => e.event_type === type),
    /** Waits until an event of the type has arrived. */
    async waitFor(type: string, page: Page, timeout = 15_000): Promise<SentEvent> {
      const started = Date.now();
      for (;;) {
        const found = events().find((e) => e.event_type === type);
        if (found) return found;
        if (Date.now() - started > timeout) throw new Error(`no ${type} sent within ${timeout} ms`);
        await page.waitForTimeout(100);
      }
    },
    /**
     * Waits until the server has answered every batch the proxy took (a beacon sent as a page unloads
     * may still be on its way upstream when the browser is done), so what was sent can be compared
     * with what was stored.
     */
    async settled(timeout = 15_000): Promise<void> {
      const started = Date.now();
      while (batches.some((b) => b.status === 0)) {
        if (Date.now() - started > timeout) throw new Error(`batches unanswered after ${timeout} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type RecordingProxy = Awaited<ReturnType<typeof startRecordingProxy>>;

/** Moves the mouse along a path for about `ms`, as a participant reading the page. */
export async function wander(page: Page, ms: number, area = { width: 1000, height: 700 }): Promise<void> {
  const steps = Math.max(1, Math.round(ms / 50));
  for (let i = 0; i < steps; i++) {
    const t = i / steps;
    await page.mouse.move(
      40 + (area.width - 80) * (0.5 + 0.4 * Math.sin(t * 6.28)),
      60 + (area.height - 120) * (0.5 + 0.4 * Math.cos(t * 4.1)),
    );
    await page.waitForTimeout(50);
  }
}

/**
 * One participant's journey, the same under every layout: join, the feed (scroll, hover, click), the
 * watch page (6 s of playback, pause and play with the keyboard, like), and back to the feed, where
 * the watched video is gone, and away from the study (the unload beacon arrives). Screenshots of both
 * pages are saved as `<shots>-feed` and `<shots>-watch`.
 */
export async function presetJourney(
  browser: Browser,
  wire: RecordingProxy,
  options: { experimentId: string; loginId: string; device: keyof typeof VIEWPORTS; shots: string },
): Promise<void> {
  const context = await browser.newContext({ viewport: VIEWPORTS[options.device] });
  const page = await context.newPage();
  await page.route("**/media/demo/*.webm", async (route) => {
    await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });

  await page.goto(`${wire.url}/join/${options.experimentId}?login_id=${options.loginId}`);
  await page.waitForURL(`${wire.url}/`);
  const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
  await expect.poll(() => cards.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(12);
  await page.waitForTimeout(1200);
  await saveScreenshot(page, `${options.shots}-feed`);
  await wander(page, 2500, {
    width: VIEWPORTS[options.device].width,
    height: VIEWPORTS[options.device].height,
  });
  await page.mouse.wheel(0, 900);
  await page.waitForTimeout(600);
  await page.mouse.wheel(0, -900);
  await page.waitForTimeout(600);
  await cards.nth(1).hover();
  await page.waitForTimeout(500);
  const href = (await cards.nth(1).getAttribute("href")) ?? "";
  expect(href).toMatch(/^\/watch\/[0-9a-f-]{36}$/);
  await cards.nth(1).click();
  await page.waitForURL(`${wire.url}${href}`);

  const player = page.locator("video");
  await expect
    .poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 })
    .toBeGreaterThan(6.1);
  await page.keyboard.press("k");
  await page.waitForTimeout(300);
  await page.keyboard.press("k");
  const like = page.getByRole("button", { name: "Like", exact: true });
  await like.click();
  await expect.poll(() => like.getAttribute("aria-pressed"), { timeout: 15_000 }).toBe("true");
  await expect(page.getByRole("button", { name: "Dislike", exact: true }).count()).resolves.toBe(1);
  await page.getByRole("list", { name: "Related videos" }).getByRole("link").first().waitFor();
  await page.waitForTimeout(800);
  await saveScreenshot(page, `${options.shots}-watch`);
  await page.goBack();
  await page.waitForURL(`${wire.url}/`);
  await expect.poll(() => cards.count(), { timeout: 15_000 }).toBeGreaterThan(0);
  const ids = await cards.evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  expect(ids).not.toContain(href);
  await page.waitForTimeout(2500);
  // Leaving the study's pages ends the session: its unload beacon (PAGE_EXIT, SESSION_END) is part of
  // the journey, so the journey ends when the proxy has it (a closed context may lose a beacon).
  const sessionId = await page.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
  await page.goto("about:blank");
  await expect
    .poll(
      () =>
        wire.batches.some(
          (b) => b.sessionId === sessionId && b.events.some((e) => e.event_type === "SESSION_END"),
        ),
      { timeout: 15_000 },
    )
    .toBe(true);
  await context.close();
}
