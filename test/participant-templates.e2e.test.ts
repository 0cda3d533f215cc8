import { readFileSync } from "node:fs";
import path from "node:path";
import type { UiTemplate } from "@feedlab/schemas";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../api/src/main.ts";
import { starterSource } from "../web/src/lib/platform/presets/starters.ts";
import { type Client, startTestApp, type TestApp } from "./harness/app.ts";
import { launchBrowser, saveScreenshot } from "./harness/browser.ts";
import {
  createParticipantStudy,
  presetJourney,
  type RecordingProxy,
  startRecordingProxy,
  VIEWPORTS,
} from "./harness/participant.ts";

const PRESET_DIR = path.join(REPO_ROOT, "web", "src", "lib", "platform", "presets");
const presetFile = (name: string) => readFileSync(path.join(PRESET_DIR, name), "utf8");

/** The grid-desktop preset's page as a starter, the way the console's editor offers it. */
const starter = (page: "feed" | "watch") =>
  starterSource(
    {
      shared: presetFile("shared.tsx"),
      parts: presetFile("grid-parts.tsx"),
      page: presetFile(`grid-${page}.tsx`),
    },
    "grid-desktop",
    page,
    "desktop",
  );

describe("a code template copied from a preset and changed renders for participants and emits the preset's events", () => {
  let app: TestApp;
  let admin: Client;
  let wire: RecordingProxy;
  let browser: Browser;
  beforeAll(async () => {
    app = await startTestApp("pglite");
    admin = await app.admin();
    wire = await startRecordingProxy(app.url);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await wire?.close();
    await app?.stop();
  });

  const eventTypes = (from: number) =>
    [...new Set(wire.batches.slice(from).flatMap((b) => b.events.map((e) => e.event_type)))].sort();

  const template = async (name: string, page: "feed" | "watch", source: string) => {
    const r = await admin.post<UiTemplate>("/api/v1/admin/ui-templates", {
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
        '<h1 className="fg-sr">Recommended videos</h1>',
        '<h1 className="fg-sr">Recommended videos</h1>\n        <p className="study-banner">Pick anything you like.</p>',
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

    const preset = await createParticipantStudy(admin, {
      ui: { feed: "grid-desktop", watch: "grid-desktop" },
      videoCount: 14,
    });
    let from = wire.batches.length;
    await presetJourney(browser, wire, {
      experimentId: preset.experimentId,
      loginId: "preset-p",
      device: "desktop",
      shots: "template-baseline",
    });
    const presetTypes = eventTypes(from);

    const coded = await createParticipantStudy(admin, {
      ui: { feed: feed.id, watch: watch.id },
      videoCount: 14,
    });
    from = wire.batches.length;
    await presetJourney(browser, wire, {
      experimentId: coded.experimentId,
      loginId: "template-p",
      device: "desktop",
      shots: "template-code",
    });
    const templateTypes = eventTypes(from);

    expect(templateTypes).toEqual(presetTypes);
    expect(wire.batches.slice(from).flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);

    // The layout is the template's: the banner and the note show, on their pages.
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    await page.goto(`${wire.url}/join/${coded.experimentId}?login_id=template-p`);
    await page.waitForURL(`${wire.url}/`);
    await expect.poll(() => page.getByText("Pick anything you like.").count()).toBe(1);
    await page.getByRole("list", { name: "Recommended videos" }).getByRole("link").first().click();
    await page.waitForURL(/\/watch\//);
    await expect.poll(() => page.getByText("Watch as long as you like.").count()).toBe(1);
    await saveScreenshot(page, "template-code-note");
    await context.close();
  }, 180_000);

  it("shows the plain layout, still tracking, when a template throws, and tells the researcher", async () => {
    const broken = await template(
      "Throws",
      "feed",
      `import { useFeed } from "@feedlab/data";\nexport default function Page() {\n  const feed = useFeed();\n  if (feed.items.length > 0) throw new Error("the layout broke");\n  return <p>Loading</p>;\n}\n`,
    );
    const study = await createParticipantStudy(admin, {
      ui: { feed: broken.id, watch: "grid-desktop" },
      videoCount: 6,
    });
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await context.newPage();
    const from = wire.batches.length;
    await page.goto(`${wire.url}/join/${study.experimentId}?login_id=broken-p`);
    await page.waitForURL(`${wire.url}/`);
    const cards = page.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await expect.poll(() => cards.count()).toBeGreaterThan(0);
    // The plain layout renders through the same surfaces: its impressions arrive (normal buffer: 5 s).
    await expect
      .poll(() => wire.batches.slice(from).some((b) => b.events.some((e) => e.event_type === "IMPRESSION")), {
        timeout: 15_000,
      })
      .toBe(true);
    await expect
      .poll(
        async () =>
          (await admin.get<UiTemplate>(`/api/v1/admin/ui-templates/${broken.id}`)).body.last_render_error
            ?.message,
      )
      .toBe("Error: the layout broke");
    await saveScreenshot(page, "template-fallback");
    await context.close();
  }, 60_000);
});
