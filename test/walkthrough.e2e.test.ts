import type { Video } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { ADMIN } from "./harness/app.ts";
import { saveScreenshot } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";

const DEMO_FILES = [
  "sourdough-basics",
  "lisbon-48-hours",
  "game-of-life-explained",
  "planting-garlic-autumn",
];

describe("an admin sets up a study in the console and a participant joins and watches", () => {
  const suite = e2eSuite();

  it("creates an experiment with an arm and a pool, and the participant sees the feed and plays a video", async () => {
    // Videos come from the API (the console's import is covered by its own test); media are the demo files.
    const api = await suite.app.admin();
    const { body } = await api.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: DEMO_FILES.map((name, i) => ({
        external_id: `e2e-${name}`,
        url: `/media/demo/${name}.webm`,
        thumbnail_url: `/media/demo/${name}.jpg`,
        title: `Walkthrough video ${i + 1}`,
        channel_name: "E2E Channel",
        duration_seconds: 25,
        view_count: 1234 * (i + 1),
        published_at: new Date(Date.UTC(2026, 5, 1 + i)).toISOString(),
      })),
    });
    expect(body.videos).toHaveLength(DEMO_FILES.length);

    const admin = await suite.browser.newPage();
    await admin.goto(`${suite.app.url}/admin`);
    await admin.waitForURL(/\/admin\/login/);
    await admin.getByLabel("Username").fill(ADMIN.username);
    await admin.getByLabel("Password").fill(ADMIN.password);
    await admin.getByRole("button", { name: "Sign in" }).click();
    await admin.getByRole("button", { name: "Create experiment" }).waitFor();

    await admin.getByLabel("Name").fill("Browser study");
    await admin.getByLabel("Description").fill("Created by the walkthrough test");
    // Creating it opens it: the next steps are on its page.
    await admin.getByRole("button", { name: "Create experiment" }).click();
    await admin.waitForURL(/\/admin\/experiments\/[0-9a-f-]{36}$/);
    await admin.getByRole("heading", { level: 1, name: "Browser study" }).waitFor();
    const experimentId = admin.url().split("/").pop() ?? "";

    await admin.getByRole("button", { name: "Add arm" }).click();
    const dialog = admin.getByRole("dialog", { name: "New arm" });
    await dialog.getByLabel("Name").fill("Arm A");
    await dialog.getByLabel("Feed algorithm").selectOption("recency");
    await dialog.getByLabel("Watch algorithm").selectOption("random");
    await dialog.getByLabel("Feed UI").selectOption("grid-desktop");
    await dialog.getByLabel("Watch UI").selectOption("grid-desktop");
    await dialog.getByRole("button", { name: "Create arm" }).click();
    await admin.getByRole("rowheader", { name: "Arm A" }).waitFor();

    await admin.getByRole("checkbox", { name: "Select all" }).check();
    await admin.getByRole("button", { name: "Save pool" }).click();
    await admin
      .getByRole("group", { name: "Before you start" })
      .getByText(/^Ready/)
      .waitFor();
    await admin.getByRole("button", { name: "Start the study" }).click();
    await admin
      .getByRole("dialog", { name: "Start the study?" })
      .getByRole("button", { name: "Start the study" })
      .click();
    await saveScreenshot(admin, "walkthrough-admin-experiment");

    // The console's changes are what the API now holds.
    await expect
      .poll(
        async () =>
          (await api.get<{ status: string }>(`/api/v1/admin/experiments/${experimentId}`)).body.status,
      )
      .toBe("running");
    await expect
      .poll(
        async () =>
          (await api.get<{ video_ids: string[] }>(`/api/v1/admin/experiments/${experimentId}/videos`)).body
            .video_ids.length,
      )
      .toBe(DEMO_FILES.length);
    const groups = (
      await api.get<{ name: string; algorithm_config: unknown }[]>(
        `/api/v1/admin/experiments/${experimentId}/groups`,
      )
    ).body;
    expect(groups).toEqual([
      expect.objectContaining({ name: "Arm A", algorithm_config: { feed: "recency", watch: "random" } }),
    ]);

    const participantContext = await suite.newContext();
    const participant = await participantContext.newPage();
    await participant.goto(`${suite.app.url}/join/${experimentId}?login_id=walker-1`);
    await participant.waitForURL(`${suite.app.url}/`);
    const cards = participant.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count()).toBe(DEMO_FILES.length);
    // Recency: the newest video comes first.
    await expect.poll(() => cards.first().textContent()).toContain(`Walkthrough video ${DEMO_FILES.length}`);
    await saveScreenshot(participant, "walkthrough-participant-feed");

    await cards.first().click();
    await participant.waitForURL(/\/watch\/[0-9a-f-]{36}$/);
    const player = participant.locator("video");
    await player.waitFor();
    expect(await player.getAttribute("src")).toMatch(/^\/media\/demo\/.+\.webm$/);
    await player.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect
      .poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10_000 })
      .toBeGreaterThan(0.5);
    await participant.getByRole("list", { name: "Related videos" }).getByRole("link").first().waitFor();
    await saveScreenshot(participant, "walkthrough-participant-watch");

    // What the participant's browser logged shows on their trajectory in the console.
    const sessionId = await participant.evaluate(() => sessionStorage.getItem("feedlab.session_id"));
    const videoId = body.videos.at(-1)?.external_id;
    const sent = await participantContext.request.post(`${suite.app.url}/api/v1/events`, {
      data: {
        session_id: sessionId,
        events: [
          {
            event_id: crypto.randomUUID(),
            event_type: "VIDEO_PLAY",
            video_id: videoId,
            timestamp: new Date().toISOString(),
            payload: { currentTime: 0, duration: 25, playbackRate: 1 },
          },
          {
            event_id: crypto.randomUUID(),
            event_type: "LIKE",
            timestamp: new Date().toISOString(),
            payload: { videoId },
          },
        ],
      },
    });
    expect(sent.status()).toBe(202);
    await admin.reload();
    await admin.getByRole("link", { name: "walker-1" }).click();
    await admin.waitForURL(/\/admin\/participants\/[0-9a-f-]{36}/);
    const timeline = admin.getByRole("list", { name: /^Events of session/ });
    await timeline.getByText(`Played ${videoId} at 0:00`).waitFor();
    await timeline.getByText(`Liked ${videoId}`).waitFor();
    await saveScreenshot(admin, "walkthrough-admin-trajectory");
    await participantContext.close();
  });
});
