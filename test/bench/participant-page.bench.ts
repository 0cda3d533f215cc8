// The participant's feed page in Chromium on localhost: the JavaScript a participant downloads for it
// (gzipped), and the time from navigation to the first rendered feed card, median of cold loads (a
// fresh browser context each: empty cache). Goals: under 60 KB and under 1 s.
import { gzipSync } from "node:zlib";
import { startTestApp } from "../harness/app.ts";
import { launchBrowser } from "../harness/browser.ts";
import { createParticipantStudy, VIEWPORTS } from "../harness/participant.ts";

export const name = "participant-page";
export const description =
  "feed page (grid-desktop preset): gzipped JS downloaded, and time to the first rendered feed card (median of cold loads)";

const LOADS = 9;

/** Strings only admin console code or the TSX compiler would carry. */
const FOREIGN = ["Create experiment", "Save pool", "esbuild"];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

export async function run(): Promise<Record<string, number | string>> {
  const app = await startTestApp("pglite");
  const browser = await launchBrowser();
  try {
    const admin = await app.admin();
    const study = await createParticipantStudy(admin, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    const times: number[] = [];
    let scripts = new Map<string, Buffer>();
    let wire = 0;
    for (let i = 0; i <= LOADS; i++) {
      // Joined over HTTP; the browser gets the participant cookie and starts cold.
      const participant = app.client();
      await participant.post("/api/v1/participants/join", {
        experiment_id: study.experimentId,
        login_id: `bench-${i}`,
      });
      const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
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
      await page.goto(`${app.url}/`);
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
    const bodies = [...scripts.values()];
    const raw = bodies.reduce((n, b) => n + b.length, 0);
    const gz = bodies.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
    const text = bodies.map((b) => b.toString("utf8")).join("\n");
    const foreign = FOREIGN.filter((s) => text.includes(s));
    return {
      "JS files downloaded": scripts.size,
      "JS raw (KB)": Math.round(raw / 102.4) / 10,
      "JS gzipped (KB, goal < 60)": Math.round(gz / 102.4) / 10,
      "JS over the wire, brotli (KB)": Math.round(wire / 102.4) / 10,
      "admin or compiler code in it": foreign.length === 0 ? "none" : foreign.join(", "),
      "first card, median ms (goal < 1000)": Math.round(median(times)),
      "first card, fastest / slowest ms": `${Math.round(Math.min(...times))} / ${Math.round(Math.max(...times))}`,
      "cold loads": times.length,
    };
  } finally {
    await browser.close();
    await app.stop();
  }
}
