import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "./harness/axe.ts";
import { saveScreenshot, signInToConsole } from "./harness/browser.ts";
import { e2eSuite } from "./harness/e2e-suite.ts";
import { demoMedia, type RecordingProxy, startRecordingProxy } from "./harness/participant.ts";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures/media");
const fixture = (name: string) => path.join(FIXTURES, name);

/**
 * The playback events the journey below makes of a video (VIDEO_PROGRESS, a 5 s timer, and
 * VIDEO_BUFFERING depend on timing, not on the file, and are left out of the comparison).
 */
const PLAYBACK = new Set(["VIDEO_PLAY", "VIDEO_PAUSE", "VIDEO_SEEK", "VIDEO_WATCHED_1S", "VIDEO_ENDED"]);

describe("the researcher's own videos, uploaded in the console and played by a participant (Chromium)", () => {
  const mediaDir = mkdtempSync(path.join(tmpdir(), "feedlab-uploads-"));
  const suite = e2eSuite({ app: { env: { FEEDLAB_MEDIA_DIR: mediaDir, FEEDLAB_MAX_UPLOAD_MB: "1" } } });
  let wire: RecordingProxy;
  let experimentId: string;
  let demo: Video;
  beforeAll(async () => {
    wire = await startRecordingProxy(suite.app.url);
    // A study with one demo video in its pool; the researcher adds the uploads in the console.
    const admin = suite.api;
    const exp = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: "Own videos" });
    experimentId = exp.body.id;
    await admin.post(`/api/v1/admin/experiments/${experimentId}/groups`, {
      name: "Arm",
      algorithm_config: { feed: "recency", watch: "recency" },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    const name = demoMedia()[0] as string;
    demo = (
      await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
        videos: [
          {
            external_id: "a-web-page",
            url: "https://www.dailymotion.com/video/x8abcd",
            title: "A page no player plays",
          },
          {
            external_id: "demo-video",
            url: `/media/demo/${name}.webm`,
            thumbnail_url: `/media/demo/${name}.jpg`,
            title: "A demo video",
            duration_seconds: 25,
          },
        ],
      })
    ).body.videos[1] as Video;
    await admin.put(`/api/v1/admin/experiments/${experimentId}/videos`, { video_ids: [demo.id] });
  });
  afterAll(async () => {
    await wire?.close();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  it("names a file that is not a video in plain words and keeps the upload button disabled until a video is chosen", async () => {
    const context = await suite.newContext({ viewport: { width: 1366, height: 850 } });
    const admin = await context.newPage();
    await signInToConsole(admin, suite.app.url);
    await admin.goto(`${suite.app.url}/admin/videos`);
    await admin.getByRole("button", { name: "Upload videos" }).click();
    const upload = admin.getByRole("dialog", { name: "Upload videos" });
    const button = upload.getByRole("button", { name: /^Upload/ });
    const dir = mkdtempSync(path.join(tmpdir(), "feedlab-not-video-"));
    try {
      // A text file, and a text file named like a video (only the browser's decoder can tell).
      const notes = path.join(dir, "notes.txt");
      const disguised = path.join(dir, "holiday.mp4");
      writeFileSync(notes, "Meeting notes: ask the lab about the pilot.\n");
      writeFileSync(disguised, "Not a video at all, only text.\n");
      await upload.getByLabel("MP4 or WebM files").setInputFiles(notes);
      await upload
        .getByRole("listitem", { name: "notes.txt" })
        .getByRole("alert")
        .getByText("“notes.txt” is not a video Feedlab can play: choose an MP4 or WebM file.")
        .waitFor();
      expect(await button.isDisabled()).toBe(true);
      expect((await button.textContent())?.replace(/\s+/g, " ").trim()).toBe("Upload videos");

      await upload.getByLabel("MP4 or WebM files").setInputFiles(disguised);
      await upload
        .getByRole("listitem", { name: "holiday.mp4" })
        .getByRole("alert")
        .getByText("“holiday.mp4” is not a video Feedlab can play: choose an MP4 or WebM file.")
        .waitFor();
      expect(await button.isDisabled()).toBe(true);
      // The browser's own words (Chromium's "PipelineStatus::DEMUXER_ERROR_COULD_NOT_OPEN: ...") are not shown.
      expect(await upload.textContent()).not.toMatch(/DEMUXER|PipelineStatus|FFmpeg/);
      await saveScreenshot(admin, "uploads-not-a-video");
      expect(await axeViolations(admin, "dialog[open]")).toEqual([]);

      // A real video next to them: the button counts it alone.
      await upload.getByLabel("MP4 or WebM files").setInputFiles(fixture("clip-1.mp4"));
      await upload.getByRole("img", { name: "Thumbnail of clip-1.mp4" }).waitFor();
      await upload.getByRole("button", { name: "Upload 1 video" }).waitFor();
      expect(await button.isEnabled()).toBe(true);
      await upload.getByRole("button", { name: "Close", exact: true }).first().click();
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await context.close();
    }
  });

  it("uploads two MP4s with captions, pools them, and a participant plays, seeks and reads captions", async () => {
    const context = await suite.newContext({ viewport: { width: 1280, height: 900 } });
    const admin = await context.newPage();
    await signInToConsole(admin, suite.app.url);
    await admin.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Videos" }).click();
    await admin.getByRole("heading", { name: "Videos", level: 1 }).waitFor();

    // Upload: the browser reads each file's duration and a thumbnail frame, then sends it with progress.
    await admin.getByRole("button", { name: "Upload videos" }).click();
    const upload = admin.getByRole("dialog", { name: "Upload videos" });
    // A file over the server's limit is refused before it is sent, saying the limit.
    const big = path.join(mediaDir, "..", `feedlab-too-big-${process.pid}.mp4`);
    writeFileSync(big, Buffer.concat([readFileSync(fixture("clip-1.mp4")), Buffer.alloc(2 ** 20)]));
    await upload.getByText("Files up to 1.0 MB.").waitFor();
    await upload.getByLabel("MP4 or WebM files").setInputFiles(big);
    const tooBig = upload.getByRole("listitem", { name: path.basename(big) });
    await tooBig.getByText(/is 1\.2 MB; this server accepts files up to 1\.0 MB/).waitFor();
    await tooBig.getByRole("button", { name: `Remove ${path.basename(big)}` }).click();
    rmSync(big);
    await upload
      .getByLabel("MP4 or WebM files")
      .setInputFiles([fixture("clip-1.mp4"), fixture("clip-2.mp4")]);
    await upload.getByRole("img", { name: "Thumbnail of clip-2.mp4" }).waitFor();
    await upload.getByRole("listitem", { name: "clip-1.mp4" }).getByText("0:08").waitFor();
    await saveScreenshot(admin, "uploads-dialog");
    expect(await axeViolations(admin, "dialog[open]")).toEqual([]);
    // A connection that drops is said plainly, per file; nothing is kept, and the files can be sent again.
    await admin.route("**/api/v1/admin/media", (route) => route.abort("connectionreset"));
    await upload.getByRole("button", { name: "Upload 2 videos" }).click();
    await upload
      .getByRole("listitem", { name: "clip-1.mp4" })
      .getByText(/The upload failed: the connection to the server was lost\. Nothing was kept/)
      .waitFor();
    await upload
      .getByRole("listitem", { name: "clip-2.mp4" })
      .getByText(/The upload failed/)
      .waitFor();
    await admin.unroute("**/api/v1/admin/media");
    expect(readdirSync(mediaDir).filter((f) => !f.startsWith("."))).toEqual([]);
    await upload.getByRole("button", { name: "Upload 2 videos" }).click();
    await upload.waitFor({ state: "detached" });
    const library = admin.getByRole("region", { name: "Library" });
    await library.getByRole("row", { name: /clip 1/ }).waitFor();
    await library.getByRole("row", { name: /clip 2/ }).waitFor();
    // A video no player can play is marked, saying why.
    await library
      .getByRole("row", { name: /A page no player plays/ })
      .getByText("No player", { exact: true })
      .waitFor();
    expect(await axeViolations(admin)).toEqual([]);
    await saveScreenshot(admin, "uploads-library");
    const stored = readdirSync(mediaDir).filter((f) => !f.startsWith("."));
    expect(stored.filter((f) => f.endsWith(".mp4"))).toHaveLength(2);
    expect(stored.filter((f) => f.endsWith(".jpg"))).toHaveLength(2);

    // Captions: English and French for clip 1, English for clip 2.
    const addCaptions = async (title: string, tracks: [file: string, lang: string][]) => {
      await library.getByRole("button", { name: `Edit video ${title}` }).click();
      const edit = admin.getByRole("dialog", { name: "Edit video" });
      for (const [file, lang] of tracks) {
        await edit.getByLabel("WebVTT file").setInputFiles(fixture(file));
        await edit.getByLabel("Language").fill(lang);
        await edit.getByRole("button", { name: "Add captions" }).click();
        await edit
          .getByRole("list", { name: "Caption tracks" })
          .getByText(`${lang}`, { exact: true })
          .waitFor();
      }
      // A file that is not WebVTT is refused with what it is, and nothing is added.
      await edit.getByLabel("WebVTT file").setInputFiles(fixture("clip-1.mp4"));
      await edit.getByLabel("Language").fill("de");
      await edit.getByRole("button", { name: "Add captions" }).click();
      await edit.getByText(/Captions must be a WebVTT file.*this file is an MP4 video/).waitFor();
      await edit.getByLabel("Language").fill("");
      await saveScreenshot(admin, `uploads-edit-${title.replace(/\s/g, "-")}`);
      await edit.getByRole("button", { name: "Save video" }).click();
      await edit.waitFor({ state: "detached" });
      await library
        .getByRole("row", { name: new RegExp(title) })
        .getByText(tracks.map(([, l]) => l).join(", "))
        .waitFor();
    };
    await addCaptions("clip 1", [
      ["captions-en.vtt", "en"],
      ["captions-fr.vtt", "fr"],
    ]);
    await addCaptions("clip 2", [["captions-en.vtt", "en"]]);

    // The pool picker: search, select all matching, save.
    await admin.goto(`${suite.app.url}/admin/experiments/${experimentId}`);
    const pool = admin.getByRole("region", { name: "Video pool" });
    await pool.getByLabel("Search").fill("clip");
    await pool.getByLabel("Select all 2 matching").check();
    await pool.getByRole("button", { name: "Save pool" }).click();
    await admin.getByText("Pool saved: 3 videos.").waitFor();
    await saveScreenshot(admin, "uploads-pool");
    const adminClient = await suite.app.admin();
    await adminClient.patch(`/api/v1/admin/experiments/${experimentId}`, { status: "running" });
    const videos = (await adminClient.get<Video[]>("/api/v1/admin/videos")).body;
    const clip = videos.find((v) => v.title === "clip 1") as Video;
    expect(clip).toMatchObject({ duration_seconds: 8, type: "native" });
    expect(clip.captions.map((c) => c.lang)).toEqual(["en", "fr"]);

    // The participant: feed, watch page, captions, a seek (served by Range requests), a pause.
    const participant = await context.newPage();
    const media: { url: string; status: number; range: string | undefined }[] = [];
    participant.on("response", (r) => {
      if (r.url().includes("/media/"))
        media.push({ url: r.url(), status: r.status(), range: r.request().headers().range });
    });
    const sent = () => wire.batches.flatMap((b) => b.events);
    await participant.goto(`${wire.url}/join/${experimentId}?login_id=own-videos-viewer`);
    await participant.waitForURL(`${wire.url}/`);
    const journey = async (video: Video) => {
      await participant.goto(`${wire.url}/`);
      await participant
        .getByRole("list", { name: "Recommended videos" })
        .locator(`a[href="/watch/${video.id}"]`)
        .click();
      await participant.waitForURL(`${wire.url}/watch/${video.id}`);
      const player = participant
        .getByRole("region", { name: /Video player/ })
        .or(participant.locator("video"));
      await player.first().waitFor();
      await participant.waitForFunction(
        () => (document.querySelector("video")?.currentTime ?? 0) > 1.5,
        null,
        {
          timeout: 15_000,
        },
      );
      // The participant drags the scrubber to 5 s, watches on, then pauses.
      await participant.evaluate(() => {
        (document.querySelector("video") as HTMLVideoElement).currentTime = 5;
      });
      await participant.waitForFunction(() => (document.querySelector("video")?.currentTime ?? 0) > 6.2);
      await participant.evaluate(() => (document.querySelector("video") as HTMLVideoElement).pause());
      await expect
        .poll(() => sent().some((e) => e.video_id === video.external_id && e.event_type === "VIDEO_PAUSE"), {
          timeout: 15_000,
        })
        .toBe(true);
    };

    await journey(clip);
    // Captions: the video's tracks, labelled; the participant turns English on and reads the cue.
    const tracks = await participant.evaluate(() =>
      [...(document.querySelector("video") as HTMLVideoElement).textTracks].map((t) => ({
        kind: t.kind,
        language: t.language,
        label: t.label,
      })),
    );
    expect(tracks).toEqual([
      { kind: "captions", language: "en", label: "English" },
      { kind: "captions", language: "fr", label: "French" },
    ]);
    const cue = await participant.evaluate(async () => {
      const video = document.querySelector("video") as HTMLVideoElement;
      const english = video.textTracks[0] as TextTrack;
      english.mode = "showing";
      video.currentTime = 1;
      await new Promise((resolve) => setTimeout(resolve, 800));
      return [...(english.activeCues ?? [])].map((c) => (c as VTTCue).text);
    });
    expect(cue).toEqual(["A test pattern and a tone"]);
    await saveScreenshot(participant, "uploads-watch-captions");

    await journey(demo);
    // Each kind of event goes out on its own schedule: wait for the journey's kinds of both videos.
    const journeyTypes = ["VIDEO_PLAY", "VIDEO_SEEK", "VIDEO_PAUSE", "VIDEO_WATCHED_1S"];
    await expect
      .poll(
        () =>
          [clip.external_id, "demo-video"].flatMap((id) =>
            journeyTypes.filter((t) => !sent().some((e) => e.video_id === id && e.event_type === t)),
          ),
        { timeout: 15_000 },
      )
      .toEqual([]);
    await context.close();

    // Range requests served the uploaded file (206 with the bytes asked for).
    const uploaded = media.filter((m) => m.url.includes("/media/uploads/") && m.url.endsWith(".mp4"));
    expect(uploaded.some((m) => m.status === 206 && m.range?.startsWith("bytes="))).toBe(true);
    expect(uploaded.every((m) => m.status === 200 || m.status === 206)).toBe(true);

    // The same playback events as the demo media, from the same journey, all from the native player.
    const typesOf = (externalId: string) =>
      [
        ...new Set(
          sent()
            .filter((e) => e.video_id === externalId && PLAYBACK.has(e.event_type))
            .map((e) => e.event_type),
        ),
      ].sort();
    const own = typesOf(clip.external_id);
    expect(own).toEqual(
      expect.arrayContaining(["VIDEO_PLAY", "VIDEO_SEEK", "VIDEO_PAUSE", "VIDEO_WATCHED_1S"]),
    );
    expect(own).toEqual(typesOf("demo-video"));
    const seek = sent().find((e) => e.video_id === clip.external_id && e.event_type === "VIDEO_SEEK");
    expect(seek?.payload).toMatchObject({ source: "native", duration: 8 });
    expect(seek?.payload.to as number).toBeCloseTo(5, 1);
    expect(wire.batches.flatMap((b) => b.reply?.rejected ?? [])).toEqual([]);
  }, 180_000);
});
