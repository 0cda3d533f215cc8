import type { Video } from "@feedlab/schemas";
import type { Browser, BrowserContext, BrowserContextOptions } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { type Client, startTestApp, type TestApp } from "./app.ts";
import { launchBrowser } from "./browser.ts";
import { addDemoVideos } from "./fixtures.ts";

/** What a browser suite over one embedded server shares: filled in before its first test. */
export interface ConsoleSuite {
  app: TestApp;
  browser: Browser;
  /** The admin's API client. */
  api: Client;
  /** Three demo videos, added before the first test. */
  videos: Video[];
  /** A new browser context, closed after the suite's last test. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
}

/**
 * Registers, in the calling `describe`, the setup most console and participant browser suites share:
 * an embedded (PGlite) server, Chromium, the admin's client and demo videos whose external ids start
 * with `prefix`; and the teardown that closes every context, the browser and the server.
 */
export function consoleSuite(prefix: string, videoTitle: string): ConsoleSuite {
  const contexts: BrowserContext[] = [];
  const suite = {
    async newContext(options?: BrowserContextOptions) {
      const context = await suite.browser.newContext(options);
      contexts.push(context);
      return context;
    },
  } as ConsoleSuite;
  beforeAll(async () => {
    suite.app = await startTestApp("pglite");
    suite.browser = await launchBrowser();
    suite.api = await suite.app.admin();
    suite.videos = await addDemoVideos(suite.api, prefix, videoTitle);
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await suite.browser?.close();
    await suite.app?.stop();
  });
  return suite;
}
