import type { UiTemplate } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import {
  createParticipantStudy,
  presetJourney,
  presetStarter,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
} from "./harness/participant.ts";

/** The grid-desktop preset's page as a starter, the way the console's editor offers it. */
const starter = (page: "feed" | "watch") => presetStarter("grid-desktop", page);

describe("a code template copied from a preset and changed renders for participants and emits the preset's events", () => {
  const suite = e2eSuite();
  let wire: RecordingProxy;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
  });
  afterAll(async () => {
    await wire?.close();
  });

  const eventTypes = (from: number) =>
    [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))].sort();

  const template = async (name: string, page: "feed" | "watch", source: string) => {
    const r = await suite.api.post<UiTemplate>("/api/v1/admin/ui-templates", {
      name,
      page,
      template_type: "code",
      source,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };

  it("gives the journey the template's layout on both pages, with the same event types as the preset", async () => {
    // The researcher's change: a banner above the feed, and a note under the watch page's title.
    const feed = await template(
      "Grid with a banner",
      "feed",
      starter("feed").replace(
        '<h1 className="fg-sr">{t("feed.heading")}</h1>',
        '<h1 className="fg-sr">{t("feed.heading")}</h1>\n        <p className="study-banner">Pick anything you like.</p>',
      ),
    );
    expect(feed.source).toContain("study-banner");
    const watch = await template(
      "Grid watch with a note",
      "watch",
      starter("watch").replace(
        "export default variants.desktop;",
        'export default function Page(props: WatchLayoutProps) {\n  return (\n    <>\n      <p className="study-note">Watch as long as you like.</p>\n      {variants.desktop(props)}\n    </>\n  );\n}',
      ),
    );

    const preset = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 14,
    });
    let from = wire.batches.length;
    await presetJourney(suite.browser, wire, {
      experimentId: preset.experimentId,
      loginId: "preset-p",
      device: "desktop",
      shots: "template-baseline",
    });
    const presetTypes = eventTypes(from);

    const coded = await createParticipantStudy(suite.api, {
      ui: { feed: feed.id, watch: watch.id },
      videoCount: 14,
    });
    from = wire.batches.length;
    await presetJourney(suite.browser, wire, {
      experimentId: coded.experimentId,
      loginId: "template-p",
      device: "desktop",
      shots: "template-code",
    });
    const templateTypes = eventTypes(from);

    expect(templateTypes).toEqual(presetTypes);
    expect(wire.batches.slice(from).flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);

    // The layout is the template's: the banner and the note show, on their pages.
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${coded.experimentId}?login_id=template-p`);
    await page.waitForURL(`${wire.url}/`);
    await expect.poll(() => page.getByText("Pick anything you like.").count(), { timeout: 15_000 }).toBe(1);
    await page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().click();
    await page.waitForURL(/\/watch\//);
    await expect
      .poll(() => page.getByText("Watch as long as you like.").count(), { timeout: 15_000 })
      .toBe(1);
    await saveScreenshot(page, "template-code-note");
    await context.close();
  }, 180_000);

  it("shows the plain layout, still tracking, when a template throws, and tells the researcher", async () => {
    const broken = await template(
      "Throws",
      "feed",
      `import { useFeed } from "@feedlab/data";\nexport default function Page() {\n  const feed = useFeed();\n  if (feed.items.length > 0) throw new Error("the layout broke");\n  return <p>Loading</p>;\n}\n`,
    );
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: broken.id, watch: "grid-desktop" },
      videoCount: 6,
    });
    const context = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const from = wire.batches.length;
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=broken-p`);
    await page.waitForURL(`${wire.url}/`);
    const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    // The plain layout renders through the same surfaces: its impressions arrive (normal buffer: 5 s).
    await expect
      .poll(() => wire.batches.slice(from).some((b) => b.events.some((e) => e.event_type === "IMPRESSION")), {
        timeout: 15_000,
      })
      .toBe(true);
    await expect
      .poll(
        async () =>
          (await suite.api.get<UiTemplate>(`/api/v1/admin/ui-templates/${broken.id}`)).body.last_render_error
            ?.message,
      )
      .toBe("Error: the layout broke");
    await saveScreenshot(page, "template-fallback");
    await context.close();
  }, 60_000);

  it("lets a researcher copy a preset, see problems and the preview as they type, save, and give the layout to an arm in the console", async () => {
    const study = await createParticipantStudy(suite.api, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 8,
    });
    const context = await suite.newContext({ viewport: { width: 1400, height: 950 } });
    const page = await context.newPage();
    await signInToConsole(page, suite.app.url);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Layouts" }).click();
    await page.getByRole("heading", { name: "Layouts", exact: true }).waitFor();
    expect(await axeViolations(page)).toEqual([]);

    // A new feed layout starts as the grid-desktop preset's page, compiled and previewed on a pool.
    await page.getByRole("link", { name: "New feed layout in code" }).click();
    await page.waitForURL(/\/admin\/layouts\/new/);
    const status = page.getByRole("status").filter({ hasText: /Compiled in \d+ ms|problem/ });
    await status.filter({ hasText: "Compiled in" }).waitFor({ timeout: 30_000 });
    await page.getByLabel("Videos of the experiment").selectOption(study.experimentId);
    // The preview is a document of its own: a participant's screen, scaled to the pane.
    const preview = page.frameLocator('iframe[title="Preview of the layout"]');
    const previewCards = preview.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => previewCards.count(), { timeout: 15_000 }).toBe(8);
    expect(await previewCards.first().getAttribute("href")).toBe(`/watch/${study.videos.at(-1)?.id}`);
    expect(await axeViolations(page)).toEqual([]);

    // Copying another preset asks first, in a dialog.
    await page.getByLabel("Start from a preset").selectOption("list-mobile");
    await page.getByRole("button", { name: "Copy into the editor" }).click();
    await page
      .getByRole("dialog", { name: "Replace the code?" })
      .getByRole("button", { name: "Replace" })
      .click();
    await status.filter({ hasText: "Compiled in" }).waitFor();

    // A mistake shows where it is, and the server refuses to save it.
    const code = page.getByRole("textbox", { name: "Layout source (TSX)" });
    await code.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.insertText("\nconst broken = ;\n");
    await status.filter({ hasText: "1 problem:" }).waitFor();
    const problems = page.getByRole("list", { name: "Compile problems" }).getByRole("listitem");
    await expect
      .poll(() => problems.first().textContent(), { timeout: 15_000 })
      .toMatch(/^Line \d+, column \d+: Unexpected ";"/);
    await page.getByLabel("Name").fill("Study picks");
    await page.getByRole("button", { name: "Save layout" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /^Could not save the layout: Line \d+/ })
      .waitFor();
    await saveScreenshot(page, "template-editor-problem");

    // The researcher's own layout: a heading and plain cards, rendered by the preview as typed.
    await code.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(OWN_LAYOUT);
    await preview.getByRole("heading", { name: "Study picks" }).waitFor();
    // The refused save's message went with the code it was about.
    expect(await page.getByRole("alert").filter({ hasText: "Could not save" }).count()).toBe(0);
    await expect.poll(() => previewCards.count(), { timeout: 15_000 }).toBe(6);
    await saveScreenshot(page, "template-editor-own-layout");
    await page.getByRole("button", { name: "Save layout" }).click();
    await page.waitForURL(/\/admin\/layouts\/[0-9a-f-]{36}$/);
    await page.getByText(/^Version 1 · used by 0 arms/).waitFor();

    // The group gets it in the experiment's group dialog, under "Your layouts".
    await page.goto(`${suite.app.url}/admin/experiments/${study.experimentId}`);
    await page.getByRole("button", { name: "Edit arm Arm" }).click();
    const dialog = page.getByRole("dialog", { name: /Arm/ });
    await dialog.getByLabel("Feed UI").selectOption({ label: "Study picks (v1)" });
    await dialog.getByRole("button", { name: "Save arm" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByText("Study picks").first().waitFor();
    await context.close();

    // The participant's feed is the layout, with cards that lead to the watch page.
    const participant = await suite.newContext({ viewport: VIEWPORTS.desktop });
    const feed = await participant.newPage();
    await feed.goto(`${suite.app.url}/join/${study.experimentId}?login_id=console-layout-p`);
    await feed.getByRole("heading", { name: "Study picks" }).waitFor();
    const cards = feed.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(6);
    expect(await axeViolations(feed)).toEqual([]);
    await cards.first().click();
    await feed.waitForURL(/\/watch\//);
    await participant.close();
  }, 180_000);
});

/** A small layout a researcher might write from scratch: a heading and one line per video. */
const OWN_LAYOUT = `import { useFeed } from "@feedlab/data";
import { FeedSurface, VideoSurface } from "@feedlab/surfaces";

export default function Page() {
  const feed = useFeed({ pageSize: 6 });
  return (
    <FeedSurface>
      <main>
        <h1>Study picks</h1>
        <ul aria-label="Recommended videos">
          {feed.items.map((video, i) => (
            <li key={video.id}>
              <VideoSurface video={video} position={i} context="feed">
                <span>{video.title}</span>
              </VideoSurface>
            </li>
          ))}
        </ul>
      </main>
    </FeedSurface>
  );
}
`;
