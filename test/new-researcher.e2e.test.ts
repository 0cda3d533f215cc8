import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allAxeViolations } from "./harness/axe.ts";
import { resizeTo, saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";

const PROLIFIC = "https://app.prolific.com/submissions/complete";
const DEMO_VIDEO = path.resolve(import.meta.dirname, "../api/demo/media/sourdough-basics.webm");
const WIDTHS = { laptop: { width: 1366, height: 850 }, phone: { width: 390, height: 844 } } as const;

/**
 * Issue 34's journey: a researcher who does not read code sets up a whole study in the console, from
 * an empty install, one participant takes it to the end, and the researcher reads the results, the
 * exports and the audit log. Every page on the way is checked with axe (WCAG and best practices) and
 * photographed at a laptop's and a phone's width.
 */
describe("a new researcher's first study, from an empty console to the audit log (Chromium)", () => {
  const files = mkdtempSync(path.join(tmpdir(), "feedlab-new-researcher-"));
  const suite = e2eSuite({ app: { env: { FEEDLAB_MEDIA_DIR: files } } });
  let context: BrowserContext;
  let participantContext: BrowserContext;

  beforeAll(async () => {
    context = await suite.newContext({ viewport: WIDTHS.laptop });
    participantContext = await suite.newContext({ viewport: WIDTHS.laptop });
  });
  afterAll(() => rmSync(files, { recursive: true, force: true }));

  /** The page as it is now, at both widths: axe finds nothing, and a screenshot of each is kept. */
  async function looksRightAtBothWidths(page: Page, name: string): Promise<void> {
    for (const [width, size] of Object.entries(WIDTHS)) {
      await resizeTo(page, size);
      expect.soft(await allAxeViolations(page), `${name} at ${size.width} px`).toEqual([]);
      await saveScreenshot(page, `new-researcher-${name}-${width}`);
    }
    await resizeTo(page, WIDTHS.laptop);
  }

  /** How far the widest table box of the page scrolls sideways (0: every table fits). */
  const sidewaysScroll = (page: Page) =>
    page.evaluate(() =>
      Math.max(
        0,
        ...[...document.querySelectorAll(".table-wrap")].map((el) => el.scrollWidth - el.clientWidth),
      ),
    );

  it("sets up, runs and reads a study with plain words, a live checklist and names beside ids", async () => {
    const admin = await context.newPage();
    const errors: string[] = [];
    admin.on("pageerror", (error) => errors.push(error.message));
    await signInToConsole(admin, suite.app.url);
    await looksRightAtBothWidths(admin, "experiments-empty");

    // Create: the new experiment opens, with a checklist of what is missing.
    await admin.getByLabel("Name").fill("Feed habits");
    await admin.getByRole("button", { name: "Create experiment" }).click();
    await admin.waitForURL(/\/admin\/experiments\/[0-9a-f-]{36}$/);
    const experimentId = admin.url().split("/").pop() ?? "";
    const checklist = admin.getByRole("group", { name: "Before you start" });
    await checklist.getByText(/Add at least one arm/).waitFor();
    await checklist.getByText(/Add videos to the pool/).waitFor();
    // The status changes only with its own buttons: a new experiment offers to start, nothing else.
    const status = admin.getByRole("region", { name: "Status" });
    expect(await status.getByRole("button").allTextContents()).toEqual(["Start the study"]);
    expect(await admin.getByRole("combobox", { name: "Status" }).count()).toBe(0);
    await looksRightAtBothWidths(admin, "experiment-new");
    // Each missing item leads to the section that fixes it.
    await checklist
      .getByRole("listitem")
      .filter({ hasText: "Add at least one arm" })
      .getByRole("link", { name: "Go to Arms" })
      .click();
    await admin.waitForURL(`${suite.app.url}/admin/experiments/${experimentId}#groups-heading`);
    await admin.getByRole("button", { name: "Add arm" }).waitFor();

    // A block layout for the feed, made in the block editor from its starter.
    await admin.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Layouts" }).click();
    await admin.waitForURL(`${suite.app.url}/admin/layouts`);
    await looksRightAtBothWidths(admin, "layouts-empty");
    await admin.getByRole("link", { name: "New feed layout with blocks" }).click();
    const palette = admin.getByRole("region", { name: "Blocks", exact: true });
    const tree = admin.getByRole("tree", { name: "Blocks of the layout" });
    const item = (block: string) => tree.getByRole("treeitem", { name: new RegExp(`^${block}`) });
    const dragOnto = (block: string, target: string) =>
      palette.getByRole("button", { name: block, exact: true }).dragTo(item(target));
    // A list of the feed's videos, each card a thumbnail and a title.
    await dragOnto("Video list", "Page");
    await dragOnto("Thumbnail", "Video list");
    await dragOnto("Title", "Video list");
    await expect.poll(() => tree.getByRole("treeitem").count()).toBe(4);
    // Blocks are named in words, never by their code identifiers.
    expect(await tree.textContent()).not.toMatch(/VideoList|SplitColumn/);
    await admin.getByLabel("Name", { exact: true }).fill("Compact feed");
    await looksRightAtBothWidths(admin, "blocks-editor");
    await admin.getByRole("button", { name: "Save layout" }).click();
    await admin.waitForURL(/\/admin\/layouts\/[0-9a-f-]{36}$/);

    // Two arms: one on a preset, one on the block layout. The checklist follows each save.
    await admin.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    await checklist.getByText(/Add at least one arm/).waitFor();
    for (const arm of [
      { name: "Preset grid", feedUi: { value: "grid-desktop" } },
      { name: "Compact blocks", feedUi: { label: "Compact feed (v1)" } },
    ]) {
      await admin.getByRole("button", { name: "Add arm" }).click();
      const dialog = admin.getByRole("dialog", { name: "New arm" });
      await dialog.getByLabel("Name").fill(arm.name);
      await dialog.getByLabel("Feed algorithm").selectOption("popularity");
      await dialog.getByLabel("Watch algorithm").selectOption("recency");
      await dialog.getByLabel("Feed UI").selectOption(arm.feedUi);
      await dialog.getByLabel("Watch UI").selectOption("grid-desktop");
      await dialog.getByRole("button", { name: "Create arm" }).click();
      await dialog.waitFor({ state: "hidden" });
      await admin.getByRole("rowheader", { name: arm.name }).waitFor();
    }
    await checklist.getByText(/Add at least one arm/).waitFor({ state: "detached" });
    await checklist.getByText(/Add videos to the pool/).waitFor();

    // Videos: a file that is not a video is refused in plain words, a real one is uploaded.
    await admin.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Videos" }).click();
    await admin.getByRole("heading", { name: "Videos", level: 1 }).waitFor();
    await looksRightAtBothWidths(admin, "videos-empty");
    await admin.getByRole("button", { name: "Upload videos" }).click();
    const upload = admin.getByRole("dialog", { name: "Upload videos" });
    const notes = path.join(files, "notes.txt");
    writeFileSync(notes, "Ideas for the pilot.\n");
    await upload.getByLabel("MP4 or WebM files").setInputFiles(notes);
    await upload
      .getByRole("alert")
      .getByText("“notes.txt” is not a video Feedlab can play: choose an MP4 or WebM file.")
      .waitFor();
    const send = upload.getByRole("button", { name: /^Upload/ });
    expect(await send.isDisabled()).toBe(true);
    expect(await upload.textContent()).not.toMatch(/DEMUXER|PipelineStatus|FFmpeg/);
    await looksRightAtBothWidths(admin, "upload-not-a-video");
    await upload.getByRole("button", { name: "Remove notes.txt" }).click();
    await upload.getByLabel("MP4 or WebM files").setInputFiles(DEMO_VIDEO);
    await upload.getByRole("button", { name: "Upload 1 video" }).click();
    await upload.waitFor({ state: "detached" });
    await admin
      .getByRole("region", { name: "Videos" })
      .getByRole("row", { name: /sourdough/i })
      .waitFor();
    await looksRightAtBothWidths(admin, "videos");

    // The pool, then consent and completion with Prolific's return link, reached from the page's sections.
    await admin.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    await admin.getByRole("checkbox", { name: "Select all" }).check();
    await admin.getByRole("button", { name: "Save pool" }).click();
    await checklist.getByText(/Add videos to the pool/).waitFor({ state: "detached" });
    const sections = admin.getByRole("navigation", { name: "Sections of this page" });
    await sections.getByRole("link", { name: "Consent and completion" }).click();
    await admin.waitForURL(`${suite.app.url}/admin/experiments/${experimentId}#study-flow-heading`);
    await admin.getByLabel("Consent form").fill("# About this study\n\nYou will watch **short videos**.");
    await admin.getByLabel("After this many sessions").fill("2");
    await admin.getByLabel("Completion code").fill("FH7Q2K");
    // A return link pasted without https:// is named in Feedlab's words as soon as the field is left.
    const returnLink = admin.getByLabel("Return link (optional)");
    await returnLink.fill("app.prolific.com/submissions/complete?cc={code}");
    await returnLink.press("Tab");
    const linkProblem = admin.getByText(
      /^The return link must be a full web address starting with https:\/\//,
    );
    await linkProblem.waitFor();
    expect(await returnLink.getAttribute("aria-invalid")).toBe("true");
    expect(await returnLink.evaluate((el: HTMLInputElement) => el.validationMessage)).toBe("");
    await looksRightAtBothWidths(admin, "return-link-problem");
    await admin.getByRole("button", { name: "Use Prolific's return link" }).click();
    await linkProblem.waitFor({ state: "detached" });
    await admin.getByRole("button", { name: "Save consent and completion" }).click();
    await admin.getByText("Consent and completion saved.").first().waitFor();

    // A post survey, created inactive: a warning, then gone once it is activated.
    await admin.getByRole("button", { name: "New survey" }).click();
    await admin.waitForURL(/\/surveys\/new$/);
    await admin.getByLabel("Kind").selectOption("post");
    await admin.getByLabel("Name", { exact: true }).fill("Exit questions");
    const question = admin.getByRole("group", { name: "Question 1" });
    await question.getByLabel("Question text").fill("Did the videos suit you?");
    await question.getByLabel("Option 1 text").fill("Yes");
    await question.getByRole("button", { name: "Add option" }).click();
    await question.getByLabel("Option 2 text").fill("No");
    await looksRightAtBothWidths(admin, "survey-new");
    await admin.getByRole("button", { name: "Save survey" }).click();
    await admin.waitForURL(new RegExp(`/admin/experiments/${experimentId}(#surveys)?$`));
    const inactive = checklist.getByText(/“Exit questions” is inactive/);
    await inactive.waitFor();
    await admin.getByRole("button", { name: "Activate survey Exit questions" }).click();
    await inactive.waitFor({ state: "detached" });

    // The first participant is placed in the block layout's arm by hand (the others are balanced).
    const participants = admin.getByRole("region", { name: "Participants" });
    await participants.getByLabel("Login ID").fill("pid-first");
    await participants.getByLabel("Arm", { exact: true }).selectOption({ label: "Compact blocks" });
    await participants.getByRole("button", { name: "Add participant" }).click();
    await participants.getByRole("link", { name: "pid-first" }).waitFor();

    // Start: asked first, then running at once, without a save.
    await sections.getByRole("link", { name: "Status" }).click();
    await status.getByRole("button", { name: "Start the study" }).click();
    const start = admin.getByRole("dialog", { name: "Start the study?" });
    await start.getByText(/new participants can join/).waitFor();
    await looksRightAtBothWidths(admin, "start-dialog");
    await start.getByRole("button", { name: "Start the study" }).click();
    await checklist.waitFor({ state: "detached" });
    await admin.locator(".title-row .badge", { hasText: "running" }).waitFor();
    expect(await status.getByRole("button").allTextContents()).toEqual([
      "Pause the study",
      "Complete the study",
    ]);
    expect(await sidewaysScroll(admin)).toBe(0);
    await looksRightAtBothWidths(admin, "experiment-running");

    // One participant, from Prolific: consent, the feed, a video, then a second visit to the end.
    const arrivals: string[] = [];
    await participantContext.route(`${PROLIFIC}**`, async (route) => {
      arrivals.push(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/html", body: "<title>Prolific</title>" });
    });
    const first = await participantContext.newPage();
    first.on("pageerror", (error) => errors.push(error.message));
    await first.goto(
      `${suite.app.url}/join/${experimentId}?PROLIFIC_PID=pid-first&STUDY_ID=st&SESSION_ID=se`,
    );
    await first.getByRole("heading", { name: "Consent to take part" }).waitFor();
    await looksRightAtBothWidths(first, "participant-consent");
    await first.getByRole("button", { name: "I agree" }).click();
    const cards = first.getByRole("list", { name: "Recommended videos" }).getByRole("link");
    await cards.first().waitFor();
    await looksRightAtBothWidths(first, "participant-feed");
    await cards.first().click();
    await first.waitForURL(/\/watch\//);
    const player = first.locator("video");
    await player.waitFor();
    await player.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(1);
    await player.evaluate((v: HTMLVideoElement) => v.pause());
    await looksRightAtBothWidths(first, "participant-watch");
    await first.close({ runBeforeUnload: true });

    const second = await participantContext.newPage();
    second.on("pageerror", (error) => errors.push(error.message));
    await second.goto(`${suite.app.url}/`);
    const post = second.getByRole("dialog", { name: "One last thing" });
    await post.waitFor();
    await post.getByRole("radio", { name: "Yes" }).check();
    await post.getByRole("button", { name: "Submit" }).click();
    // The code stays on screen with its copy button and the way back, before the redirect.
    await second.getByRole("heading", { name: "Thank you for taking part" }).waitFor();
    expect(await second.getByTestId("completion-code").textContent()).toBe("FH7Q2K");
    await second.getByRole("button", { name: "Copy the completion code" }).waitFor();
    await second.getByRole("link", { name: "Return to the study site" }).waitFor();
    expect(arrivals).toEqual([]);
    for (const [width, size] of Object.entries(WIDTHS)) {
      await resizeTo(second, size);
      await saveScreenshot(second, `new-researcher-participant-completion-${width}`);
    }
    expect.soft(await allAxeViolations(second), "completion page").toEqual([]);
    await second.waitForURL(`${PROLIFIC}**`, { timeout: 20_000 });
    expect(arrivals).toEqual([`${PROLIFIC}?cc=FH7Q2K`]);

    // Results: the arms table fits; every arm is named in the charts, the one without data says so.
    await admin.goto(`${suite.app.url}/admin/experiments/${experimentId}/results`);
    const perArm = admin.getByRole("region", { name: "Counts and rates per arm" });
    await perArm.getByRole("rowheader", { name: "Preset grid" }).waitFor();
    await perArm.getByRole("rowheader", { name: "Compact blocks" }).waitFor();
    expect(await sidewaysScroll(admin)).toBe(0);
    await admin
      .getByText(/No plays yet in (Preset grid|Compact blocks)/)
      .first()
      .waitFor();
    await looksRightAtBothWidths(admin, "results");

    // The events export names each page's layout beside its stamp.
    const events = admin
      .getByRole("region", { name: "Downloads" })
      .getByRole("link", { name: "CSV" })
      .first();
    const href = (await events.getAttribute("href")) ?? "";
    const csv = await (await admin.request.get(new URL(href, suite.app.url).href)).text();
    const [header, ...rows] = csv.trim().split("\r\n");
    const columns = (header ?? "").split(",");
    expect(columns.slice(columns.indexOf("ui_watch"))).toEqual(
      expect.arrayContaining(["ui_feed_name", "ui_watch_name"]),
    );
    const feedNames = new Set(rows.map((r) => r.split(",")[columns.indexOf("ui_feed_name")]));
    expect([...feedNames].filter((n) => n === "grid-desktop" || n === "Compact feed")).not.toEqual([]);

    // The audit log names what each action was about.
    await admin.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Audit" }).click();
    await admin.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
    await admin
      .getByText(/Arm “Compact blocks” in experiment “Feed habits”/)
      .first()
      .waitFor();
    await admin
      .getByText(/Experiment “Feed habits”/)
      .first()
      .waitFor();
    await looksRightAtBothWidths(admin, "audit");
    expect(errors).toEqual([]);
  });
});
