import type { Video } from "@feedlab/schemas";
import type { Browser, BrowserContext, BrowserContextOptions, LaunchOptions } from "playwright-core";
import { afterAll, beforeAll, onTestFinished } from "vitest";
import { type AppOptions, type Backend, type Client, startTestApp, type TestApp } from "./app.ts";
import { launchBrowser } from "./browser.ts";
import { addDemoVideos } from "./fixtures.ts";

/** What a browser suite over one server shares: filled in before its first test. */
export interface E2eSuite {
  app: TestApp;
  browser: Browser;
  /** The admin's API client. */
  api: Client;
  /** The demo videos asked for in `videos` (three per prefix), added before the first test. */
  videos: Video[];
  /**
   * A new browser context: made in a test, it closes when the test ends, unless `lasts` is "suite";
   * made in `beforeAll` or lasting the suite, after the suite's last test.
   */
  newContext(options?: BrowserContextOptions, lasts?: "test" | "suite"): Promise<BrowserContext>;
}

export interface E2eSuiteOptions {
  /** The app's database (default: the embedded PGlite) and options. */
  readonly backend?: Backend;
  /** The app's options, or how to work them out when the suite starts (a free port they name). */
  readonly app?: AppOptions | (() => Promise<AppOptions>);
  /**
   * The admin's client holds a session issued by the service rather than one from signing in: for
   * settings whose sign-in a plain-HTTP client cannot make, or a suite that counts sign-ins.
   */
  readonly adminBySession?: boolean;
  /** Chromium flags: a browser of the suite's own instead of a connection to the run's shared one. */
  readonly browser?: LaunchOptions;
  /** Demo videos to add: external ids start with `prefix`, titles with `title`. */
  readonly videos?: readonly { readonly prefix: string; readonly title: string }[];
}

/**
 * Registers, in the calling `describe`, the setup the browser suites share: a server (embedded PGlite
 * unless told), Chromium (the run's shared browser unless given flags), the admin's
 * client and demo videos; and the teardown that closes every context, the browser and the server.
 */
export function e2eSuite(options: E2eSuiteOptions = {}): E2eSuite {
  const contexts: BrowserContext[] = [];
  const suite = {
    videos: [] as Video[],
    async newContext(contextOptions?: BrowserContextOptions, lasts: "test" | "suite" = "test") {
      const context = await suite.browser.newContext(contextOptions);
      if (lasts === "suite" || !closesWithTest(context)) contexts.push(context);
      return context;
    },
  } as E2eSuite;
  beforeAll(async () => {
    const appOptions = typeof options.app === "function" ? await options.app() : options.app;
    [suite.app, suite.browser] = await Promise.all([
      startTestApp(options.backend ?? "pglite", appOptions),
      launchBrowser(options.browser),
    ]);
    suite.api = await (options.adminBySession ? suite.app.adminBySession() : suite.app.admin());
    for (const { prefix, title } of options.videos ?? [])
      suite.videos.push(...(await addDemoVideos(suite.api, prefix, title)));
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await suite.browser?.close();
    await suite.app?.stop();
  });
  return suite;
}

/**
 * Closes the context when the running test ends, so that what its pages still do (a watch page's
 * video plays to its end: half a core in Chromium for a 240p clip, 2026-12-02) does not slow the
 * next tests. False outside a test (in `beforeAll`), where the suite closes it after its last test.
 */
function closesWithTest(context: BrowserContext): boolean {
  try {
    onTestFinished(() => context.close().catch(() => {}));
    return true;
  } catch {
    return false; // not in a running test
  }
}

/** The common case: the embedded server, the shared browser and three demo videos. */
export function consoleSuite(prefix: string, videoTitle: string): E2eSuite {
  return e2eSuite({ videos: [{ prefix, title: videoTitle }] });
}
