import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Experiment, Group, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, type Client, startTestApp, type TestApp } from "./harness/app.ts";
import { runFeedlabAsync } from "./harness/processes.ts";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Runs a `feedlab` command as its own process (the servers answer it from this one meanwhile). */
const feedlab = (args: string[]) =>
  runFeedlabAsync(args, { FEEDLAB_ADMIN_USERNAME: ADMIN.username, FEEDLAB_ADMIN_PASSWORD: ADMIN.password });

/**
 * `feedlab study` as a lab uses it (docs/study-files.md): export a study with its uploaded media
 * from one server, edit the file, plan and apply it on a second server.
 */
describe("feedlab study export, plan and apply between two servers", () => {
  let source: TestApp;
  let target: TestApp;
  let a: Client;
  let b: Client;
  let dir: string;
  beforeAll(async () => {
    [source, target] = await Promise.all([startTestApp("pglite"), startTestApp("pglite")]);
    [a, b] = await Promise.all([source.admin(), target.admin()]);
    dir = mkdtempSync(path.join(tmpdir(), "feedlab-study-cli-"));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await Promise.all([source?.stop(), target?.stop()]);
  });

  it("carries a study and its uploaded clip to another server, with the edited arm, after a plan that says what is missing", async () => {
    const form = new FormData();
    form.append("kind", "video");
    const clip = readFileSync(path.join(ROOT, "test", "fixtures", "media", "clip-1.mp4"));
    form.append("file", new Blob([new Uint8Array(clip)]), "lab-clip.mp4");
    const upload = await a.request<{ url: string }>("POST", "/api/v1/admin/media", { form });
    expect(upload.status).toBe(201);
    const experiment = (await a.post<Experiment>("/api/v1/admin/experiments", { name: "CLI study" })).body;
    await a.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
      name: "Only arm",
      algorithm_config: { feed: "recency", watch: "recency" },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    const videos = await a.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [{ external_id: "cli-clip", url: upload.body.url, title: "A lab clip" }],
    });
    await a.put(`/api/v1/admin/experiments/${experiment.id}/videos`, {
      video_ids: videos.body.videos.map((v) => v.id),
    });

    const file = path.join(dir, "study.yaml");
    const media = path.join(dir, "media");
    const exported = await feedlab([
      "study",
      "export",
      experiment.id,
      "--out",
      file,
      "--media",
      media,
      "--url",
      source.url,
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    expect(readdirSync(media)).toEqual(["lab-clip.mp4"]);
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/url: media:[0-9a-f]{64}\/lab-clip.mp4/);
    writeFileSync(file, text.replace("feed: recency", "feed: popularity"));

    // The plan on the second server: everything to create, and the clip it lacks.
    const planned = await feedlab(["study", "plan", file, "--url", target.url]);
    expect(planned.status).toBe(1);
    expect(planned.stdout).toMatch(/media\s+lab-clip.mp4\s+refused/);
    expect(planned.stdout).toMatch(/arm\s+Only arm\s+create/);

    const applied = await feedlab(["study", "apply", file, "--media", media, "--url", target.url]);
    expect(applied.status, applied.stderr).toBe(0);
    expect(applied.stderr).toContain("Uploaded");
    const id = /Applied: \S+\/admin\/experiments\/([0-9a-f-]{36})/.exec(applied.stdout)?.[1];
    const groups = (await b.get<Group[]>(`/api/v1/admin/experiments/${id}/groups`)).body;
    expect(groups.map((g) => g.algorithm_config.feed)).toEqual(["popularity"]);
    // Applying again changes nothing and uploads nothing.
    const again = await feedlab([
      "study",
      "apply",
      file,
      "--experiment",
      id ?? "",
      "--media",
      media,
      "--url",
      target.url,
    ]);
    expect(again.status).toBe(0);
    expect(again.stderr).not.toContain("Uploaded");
    expect(again.stdout).toMatch(/^\d+ unchanged$/m);

    // A broken file: each problem with its line and column, and nothing applied.
    writeFileSync(file, text.replace("weight: 1", "weight: heavy"));
    const broken = await feedlab(["study", "apply", file, "--url", target.url]);
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+:\\d+: arms\\[0\\]\\.weight: must be number`,
      ),
    );
  });
});
