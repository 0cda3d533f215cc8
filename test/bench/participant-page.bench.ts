// The participant's feed page in Chromium on localhost: the JavaScript a participant downloads for it
// (gzipped), and the time from navigation to the first rendered feed card, median of cold loads (a
// fresh browser context each: empty cache). Goals: under 60 KB and under 1 s. The same page as a code
// template: the platform's JS stays as it is, plus the template's own module.
// Floors, measured in the same run: for time, a bare page doing the same work (register the session,
// fetch the first feed page, put one card in the document) over the same server and cookie; for size,
// Preact with its hooks (minified, gzipped), the library every layout renders with.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { startTestApp, type TestApp } from "../harness/app.ts";
import { FULL_CHROMIUM, launchBrowser } from "../harness/browser.ts";
import { createParticipantStudy, presetStarter, VIEWPORTS } from "../harness/participant.ts";

export const name = "participant-page";
export const description =
  "feed page (grid-desktop preset): gzipped JS downloaded, and time to the first rendered feed card (median of cold loads)";

const LOADS = 9;

/** Strings only admin console code or the TSX compiler would carry. */
const FOREIGN = ["Create experiment", "Save pool", "esbuild"];

/** The bare page of the time floor: no framework, no layout, one card. */
const FLOOR_PATH = "/__bench-floor";
const FLOOR_HTML = `<!doctype html><meta charset="utf-8"><title>floor</title><main id="m"></main><script type="module">
const id = crypto.randomUUID();
await fetch("/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ session_id: id }) });
const feed = await (await fetch("/feed?session_id=" + id + "&limit=20")).json();
const v = feed.items[0];
const a = document.createElement("a");
a.href = "/watch/" + v.id; a.dataset.feedlabCard = ""; a.innerHTML = '<img alt="" width="320" height="180"><h3></h3>';
a.querySelector("img").src = v.thumbnail_url; a.querySelector("h3").textContent = v.title;
document.getElementById("m").append(a);
</script>`;

/** Preact and its hooks as shipped (minified), gzipped: the size floor. */
function preactFloorBytes(): number {
  const root = dirname(createRequire(import.meta.url).resolve("preact/package.json"));
  return ["dist/preact.mjs", "hooks/dist/hooks.mjs"]
    .map((file) => gzipSync(readFileSync(join(root, file)), { level: 9 }).length)
    .reduce((a, b) => a + b, 0);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

/**
 * Cold loads of the feed page of a study on `ui`; figures for the JS (the template's module apart) and
 * time. `language`: the study runs in English and it, and the participant reads it (a browser and a
 * join link in that language).
 */
async function measure(app: TestApp, browser: Browser, ui: string, path = "/", language?: string) {
  const admin = await app.admin();
  const study = await createParticipantStudy(admin, { ui: { feed: ui, watch: "grid-desktop" } });
  if (language !== undefined)
    await admin.patch(`/api/v1/admin/experiments/${study.experimentId}`, { languages: ["en", language] });
  const times: number[] = [];
  let scripts = new Map<string, Buffer>();
  let wire = 0;
  for (let i = 0; i <= LOADS; i++) {
    // Joined over HTTP; the browser gets the participant cookie and starts cold.
    const participant = app.client();
    await participant.post("/api/v1/participants/join", {
      experiment_id: study.experimentId,
      login_id: `bench-${i}`,
      ...(language === undefined ? {} : { lang: language }),
    });
    const context = await browser.newContext({
      viewport: VIEWPORTS.desktop,
      ...(language === undefined ? {} : { locale: language }),
    });
    const { hostname } = new URL(app.url);
    await context.addCookies(
      [...participant.cookies].map(([cookieName, value]) => ({
        name: cookieName,
        value,
        domain: hostname,
        path: "/",
      })),
    );
    const page = await context.newPage();
    if (path === FLOOR_PATH)
      await page.route(`${app.url}${FLOOR_PATH}`, (route) =>
        route.fulfill({ contentType: "text/html", body: FLOOR_HTML }),
      );
    const loaded = new Map<string, Buffer>();
    const onWire = new Map<string, number>();
    page.on("response", async (response) => {
      if (!new URL(response.url()).pathname.endsWith(".js")) return;
      loaded.set(response.url(), await response.body().catch(() => Buffer.alloc(0)));
      // What actually crossed the network: the server sends precompressed (br) copies.
      onWire.set(response.url(), Number((await response.allHeaders())["content-length"] ?? 0));
    });
    // The moment the first card is in the document, on the page's own clock.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector("[data-feedlab-card]")) {
          (window as unknown as { __firstCard: number }).__firstCard = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${app.url}${path}`);
    await page.waitForFunction(
      () => (window as unknown as { __firstCard?: number }).__firstCard !== undefined,
    );
    const firstCard = await page.evaluate(() => (window as unknown as { __firstCard: number }).__firstCard);
    await page.waitForLoadState("networkidle");
    if (i > 0) times.push(firstCard); // the first load warms the server
    scripts = loaded;
    wire = [...onWire.values()].reduce((a, b) => a + b, 0);
    await context.close();
  }
  const isTemplate = (url: string) => new URL(url).pathname.startsWith("/api/v1/ui-templates/");
  const gzOf = (bodies: Buffer[]) => bodies.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
  const platform = [...scripts].filter(([url]) => !isTemplate(url)).map(([, b]) => b);
  const template = [...scripts].filter(([url]) => isTemplate(url)).map(([, b]) => b);
  const text = platform.map((b) => b.toString("utf8")).join("\n");
  // Feedlab's message catalogues: one chunk per language (messages/<tag>.json).
  const catalogues = [...scripts.keys()].filter((url) =>
    /\/[\w-]+\.json-[\w-]+\.js$/.test(new URL(url).pathname),
  );
  return {
    files: scripts.size,
    catalogues: catalogues.length,
    raw: platform.reduce((n, b) => n + b.length, 0),
    gz: gzOf(platform),
    templateGz: gzOf(template),
    wire,
    foreign: FOREIGN.filter((s) => text.includes(s)),
    times,
  };
}

const kb = (bytes: number) => Math.round(bytes / 102.4) / 10;

export async function run(): Promise<Record<string, number | string>> {
  const app = await startTestApp("pglite");
  const browser = await launchBrowser({ executablePath: FULL_CHROMIUM });
  try {
    const preset = await measure(app, browser, "grid-desktop");
    // The same page as a code template (the preset's starter, as the console's editor offers it).
    const admin = await app.admin();
    const created = await admin.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name: "Bench grid",
      page: "feed",
      template_type: "code",
      source: presetStarter("grid-desktop", "feed"),
    });
    const template = await measure(app, browser, created.body.id);
    const german = await measure(app, browser, "grid-desktop", "/", "de");
    const floor = await measure(app, browser, "grid-desktop", FLOOR_PATH);
    const floorBytes = preactFloorBytes();
    const ratio = (a: number, b: number) => Math.round((a / b) * 10) / 10;
    return {
      "JS files downloaded": preset.files,
      "JS raw (KB)": kb(preset.raw),
      "JS gzipped (KB, goal < 60)": kb(preset.gz),
      "JS over the wire, brotli (KB)": kb(preset.wire),
      "admin or compiler code in it": preset.foreign.length === 0 ? "none" : preset.foreign.join(", "),
      "message catalogues loaded": preset.catalogues,
      "German participant: JS gzipped (KB, goal < 60)": kb(german.gz),
      "German participant: message catalogues loaded": german.catalogues,
      "first card, median ms (goal < 1000)": Math.round(median(preset.times)),
      "first card, fastest / slowest ms": `${Math.round(Math.min(...preset.times))} / ${Math.round(Math.max(...preset.times))}`,
      "cold loads": preset.times.length,
      "code template: platform JS gz (KB)": kb(template.gz),
      "code template: its module gz (KB)": kb(template.templateGz),
      "code template: compiler code in it":
        template.foreign.length === 0 ? "none" : template.foreign.join(", "),
      "code template: first card, median ms": Math.round(median(template.times)),
      "floor: Preact + hooks gzipped (KB)": kb(floorBytes),
      "JS gzipped / floor": ratio(preset.gz, floorBytes),
      "floor: bare page, first card, median ms": Math.round(median(floor.times)),
      "first card / floor": ratio(median(preset.times), median(floor.times)),
      "code template first card / floor": ratio(median(template.times), median(floor.times)),
    };
  } finally {
    await browser.close();
    await app.stop();
  }
}
