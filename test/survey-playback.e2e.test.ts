import type { Video } from "@feedlab/schemas";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveScreenshot } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { createParticipantStudy } from "./harness/participant.ts";
import { providerAction, serveProviderScript } from "./harness/provider.ts";
import { vimeoStandIn, youtubeStandIn } from "./harness/provider-stand-ins.ts";
import { createSurvey } from "./harness/surveys.ts";

/** How the test reads and drives one kind of player, as a participant would. */
interface PlayerDriver {
  playing(page: Page): Promise<boolean>;
  play(page: Page): Promise<void>;
  pause(page: Page): Promise<void>;
  /** Resolves once the adapter has read the player's state at least `n` more times. */
  readings(page: Page, n: number): Promise<void>;
}

/** A provider's stand-in, through its `window.__fake*` hooks. */
function providerDriver(hooks: string): PlayerDriver {
  return {
    playing: async (page) => Boolean(await providerAction(page, hooks, "playing")),
    play: async (page) => {
      await page.evaluate((h) => (window as unknown as Record<string, { play(): void }>)[h]?.play(), hooks);
    },
    pause: async (page) => {
      await page.evaluate((h) => (window as unknown as Record<string, { pause(): void }>)[h]?.pause(), hooks);
    },
    readings: async (page, n) => {
      const read = (h: string) =>
        (window as unknown as Record<string, { readCount(): number }>)[h]?.readCount() ?? 0;
      const from = await page.evaluate(read, hooks);
      await page.waitForFunction(
        ([h, target]) => {
          const fake = (window as unknown as Record<string, { readCount(): number }>)[h as string];
          return (fake?.readCount() ?? 0) >= (target as number);
        },
        [hooks, from + n] as const,
      );
    },
  };
}

/** The native player's `<video>`: its element says all. */
const nativeDriver: PlayerDriver = {
  playing: (page) => page.locator("video").evaluate((v: HTMLVideoElement) => !v.paused && !v.ended),
  play: async (page) => {
    await page.locator("video").evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play().catch(() => undefined);
    });
  },
  pause: (page) => page.locator("video").evaluate((v: HTMLVideoElement) => v.pause()),
  // The element's events reach the player as they happen: two frames later, every reaction is done.
  readings: (page) =>
    page.evaluate(
      () =>
        new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    ),
};

describe("surveys never open over playback, whatever player plays (Chromium)", () => {
  // Autoplay without a gesture, so the native player really starts on its own too.
  const suite = e2eSuite({ browser: { args: ["--autoplay-policy=no-user-gesture-required"] } });
  let youtube: Awaited<ReturnType<typeof serveProviderScript>>;
  let vimeo: Awaited<ReturnType<typeof serveProviderScript>>;

  beforeAll(async () => {
    youtube = await serveProviderScript("/iframe_api", youtubeStandIn(600));
    vimeo = await serveProviderScript("/api/player.js", vimeoStandIn(600));
  });
  afterAll(async () => {
    await youtube?.close();
    await vimeo?.close();
  });

  const providers: { name: string; video: Record<string, unknown> | null; driver: PlayerDriver }[] = [
    {
      name: "YouTube",
      video: { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ", type: "youtube" },
      driver: providerDriver("__fakeYT"),
    },
    {
      name: "Vimeo",
      video: { url: "https://vimeo.com/76979871", type: "vimeo" },
      driver: providerDriver("__fakeVimeo"),
    },
    { name: "native", video: null, driver: nativeDriver },
  ];

  for (const { name, video, driver } of providers) {
    it(`${name}: a survey due during playback opens once it pauses, and a play while it is open is paused`, async () => {
      // Given a running study whose pool holds this player's video, with an inter-session survey not yet active,
      const tag = name.toLowerCase();
      const study = await createParticipantStudy(suite.api, {
        ui: { feed: "grid-desktop", watch: "grid-desktop" },
        videoCount: 2,
        extra: video
          ? [
              {
                external_id: `${tag}-clip`,
                url: video.url,
                title: `A ${name} video`,
                channel_name: "Provider Channel",
                duration_seconds: 600,
                published_at: new Date(Date.UTC(2027, 0, 1)).toISOString(),
              },
            ]
          : [],
      });
      const clip = (
        video ? study.videos.find((v) => v.external_id === `${tag}-clip`) : study.videos[0]
      ) as Video;
      if (video) expect(clip.type).toBe(video.type);
      const survey = await createSurvey(suite.api, study.experimentId, {
        kind: "inter_session",
        is_active: false,
      });

      // The app's CSP admits the providers' script origins only; the stand-ins live on local ports.
      const context = await suite.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
      await context.addInitScript(
        ([yt, vm]) => {
          const w = window as unknown as Record<string, string>;
          w.FEEDLAB_YOUTUBE_API_URL = yt as string;
          w.FEEDLAB_VIMEO_API_URL = vm as string;
        },
        [youtube.url, vimeo.url] as const,
      );
      await context.route("https://player.vimeo.com/video/**", (route) =>
        route.fulfill({
          contentType: "text/html",
          body: "<!doctype html><title>Stand-in Vimeo player</title><body style='background:#1a2e3b;color:#fff'>Stand-in Vimeo player</body>",
        }),
      );

      // and a participant who visited once (a first tab) and is back in a second tab (a new session):
      const first = await context.newPage();
      await first.goto(`${suite.app.url}/join/${study.experimentId}?login_id=${tag}-viewer`);
      await first.locator('a[href^="/watch/"]').first().waitFor();
      const page = await context.newPage();
      await page.goto(`${suite.app.url}/`);
      const card = page.locator(`a[href="/watch/${clip.id}"]`).first();
      await card.waitFor();

      // when the survey becomes due while the video plays (the dispatcher's answer is held until then),
      expect((await suite.api.post(`/api/v1/admin/surveys/${survey.id}/activate`, {})).status).toBe(200);
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => {
        answer = resolve;
      });
      await page.route("**/api/v1/surveys/pending**", async (route) => {
        await answered;
        await route.continue();
      });
      const check = page.waitForResponse((r) => r.url().includes("/api/v1/surveys/pending"));
      await card.click();
      await page.waitForURL(`${suite.app.url}/watch/${clip.id}`);
      await expect.poll(() => driver.playing(page), { timeout: 15_000 }).toBe(true);
      await driver.readings(page, 2);
      answer();
      expect((await check).status()).toBe(200);

      // then the gate has the answer (it says the survey waits for playback, or it opened the survey),
      await page
        .locator('[data-survey-deferred="playback"], dialog[open]')
        .first()
        .waitFor({ state: "attached" });
      await driver.readings(page, 2);
      // and the survey waits: no dialog while the video plays,
      const dialog = page.getByRole("dialog", { name: "About your last visit" });
      expect(await dialog.count()).toBe(0);
      expect(await page.locator('[data-survey-deferred="playback"]').count()).toBe(1);
      expect(await driver.playing(page)).toBe(true);

      // and opens once the participant pauses.
      await driver.pause(page);
      await dialog.waitFor();
      expect(await page.locator("[data-survey-deferred]").count()).toBe(0);

      // A play started while it is open (inside the provider's iframe, or the provider's own) is paused,
      await driver.play(page);
      await expect.poll(() => driver.playing(page), { timeout: 5000 }).toBe(false);
      await driver.readings(page, 2);
      expect(await driver.playing(page)).toBe(false);
      expect(await dialog.isVisible()).toBe(true);
      await saveScreenshot(page, `survey-playback-${tag}-open`);

      // and once the survey is closed, playback is the participant's again.
      await dialog.getByRole("button", { name: "Close" }).click();
      await dialog.waitFor({ state: "detached" });
      await driver.play(page);
      await driver.readings(page, 3);
      expect(await driver.playing(page)).toBe(true);
    });
  }
});
