import { readFileSync } from "node:fs";
import type {
  AdminSurvey,
  Experiment,
  Group,
  RecommenderView,
  StudyApplied,
  StudyChange,
  StudyDocument,
  UiTemplate,
  Video,
} from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { pyyamlLoad } from "../../../test/harness/analysis.ts";
import { BACKENDS, type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { joinWith } from "../quality/quality.fixture.ts";
import { headerEnvName } from "./export.ts";
import { richStudy, SECRET } from "./study.fixture.ts";

/** A recommender's header values as the server stores them (answers mask them). */
const storedHeaders = async (app: TestApp, key: string) => {
  const row = (await app.runtime.db("recommenders").where({ key }).first("config")) as { config: unknown };
  const config = typeof row.config === "string" ? JSON.parse(row.config) : row.config;
  return (config as { headers?: Record<string, string> }).headers;
};

const exportOf = async (admin: Client, id: string) => {
  const r = await admin.get<StudyDocument>(`/api/v1/admin/experiments/${id}/definition?format=json`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

type ErrorAnswer = { error: { code: string; message: string; details: unknown } };
const plan = (admin: Client, definition: unknown, experiment_id?: string) =>
  admin.post<{ changes: StudyChange[] } & ErrorAnswer>("/api/v1/admin/study-definitions/plan", {
    definition,
    ...(experiment_id ? { experiment_id } : {}),
  });
const apply = (admin: Client, definition: unknown, experiment_id?: string) =>
  admin.post<StudyApplied & ErrorAnswer>("/api/v1/admin/study-definitions/apply", {
    definition,
    ...(experiment_id ? { experiment_id } : {}),
  });

const withoutIds = <T extends object>(o: T, ...more: string[]) =>
  Object.fromEntries(
    Object.entries(o).filter(
      ([k]) => !["id", "experiment_id", "created_at", "updated_at", "used_by", ...more].includes(k),
    ),
  );

/** An experiment's resources as the admin API represents them, ids and clocks aside. */
async function representation(admin: Client, id: string) {
  const experiment = (await admin.get<Experiment>(`/api/v1/admin/experiments/${id}`)).body;
  const groups = (await admin.get<Group[]>(`/api/v1/admin/experiments/${id}/groups`)).body;
  const templates = (await admin.get<UiTemplate[]>("/api/v1/admin/ui-templates")).body;
  const recommenders = (await admin.get<RecommenderView[]>("/api/v1/admin/recommenders")).body;
  const poolIds = (await admin.get<{ video_ids: string[] }>(`/api/v1/admin/experiments/${id}/videos`)).body;
  const videos = (await admin.get<Video[]>("/api/v1/admin/videos")).body;
  const surveys = (await admin.get<AdminSurvey[]>(`/api/v1/admin/experiments/${id}/surveys`)).body;
  const templateName = new Map(templates.map((t) => [t.id, t.name]));
  const usedKeys = new Set(groups.flatMap((g) => [g.algorithm_config.feed, g.algorithm_config.watch]));
  const ids = Array.isArray(poolIds) ? poolIds : poolIds.video_ids;
  return {
    experiment: withoutIds(experiment, "status"),
    groups: groups.map((g) => ({
      ...withoutIds(g, "participant_count"),
      ui_config: {
        feed: templateName.get(g.ui_config.feed) ?? g.ui_config.feed,
        watch: templateName.get(g.ui_config.watch) ?? g.ui_config.watch,
      },
    })),
    layouts: templates
      .filter((t) => t.used_by.some((u) => u.experiment_id === id))
      .map((t) => withoutIds(t, "version", "last_render_error")),
    recommenders: recommenders
      .filter((r) => r.kind === "external_http" && usedKeys.has(r.key))
      .map((r) => withoutIds(r)),
    pool: ids.map((v) => withoutIds(videos.find((x) => x.id === v) ?? {})),
    surveys: surveys.map((s) => withoutIds(s, "response_count", "dismissal_count")),
  };
}

describe.each(BACKENDS)("study documents (%s)", (backend) => {
  let source: TestApp;
  let target: TestApp;
  let a: Client;
  let b: Client;
  const envName = headerEnvName("ext-rich", "Authorization");
  beforeAll(async () => {
    [source, target] = await Promise.all([startTestApp(backend), startTestApp(backend)]);
    [a, b] = await Promise.all([source.admin(), target.admin()]);
  });
  afterAll(async () => {
    delete process.env[envName];
    await Promise.all([source?.stop(), target?.stop()]);
  });

  it("exports a study that, applied to an empty server, represents the same experiment and exports the same document", async () => {
    const study = await richStudy(a, "rich");
    const doc = await exportOf(a, study.experiment.id);
    // The secret is a reference to the applying server's environment, never the value.
    expect(JSON.stringify(doc)).not.toContain("s3cr3t");
    const yaml = await a.get<string>(`/api/v1/admin/experiments/${study.experiment.id}/definition`);
    expect(yaml.status, yaml.text).toBe(200);
    expect(yaml.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(yaml.headers.get("content-disposition")).toContain("study-rich.study.yaml");
    expect(String(yaml.body)).not.toContain("s3cr3t");
    expect(doc.recommenders?.[0]?.config.headers).toEqual({ Authorization: `\${${envName}}` });
    // Python's YAML 1.1 reader reads the YAML as the JSON says: dates, `yes` and `no` stay strings.
    expect(await pyyamlLoad(String(yaml.body))).toEqual(doc);

    // Without the variable the target cannot call the service: the document says which it needs.
    delete process.env[envName];
    const missing = await apply(b, String(yaml.body));
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe("invalid_definition");
    expect(missing.body.error.details).toEqual([
      expect.objectContaining({
        path: "recommenders[0].config.headers.Authorization",
        line: expect.any(Number),
      }),
    ]);
    process.env[envName] = SECRET;
    const applied = await apply(b, String(yaml.body));
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.changes.filter((c) => c.action !== "create")).toEqual([]);
    expect(await exportOf(b, applied.body.experiment_id)).toEqual(doc);
    // Nothing silently left out: every writable field came across (status aside: see LEFT_OUT_FIELDS).
    expect(await representation(b, applied.body.experiment_id)).toEqual(
      await representation(a, study.experiment.id),
    );
    const registered = (await b.get<RecommenderView>("/api/v1/admin/recommenders/ext-rich")).body;
    expect(registered.config.headers).toEqual({ Authorization: "********" });
    expect(await storedHeaders(target, "ext-rich")).toEqual({ Authorization: SECRET });

    // Applying the same document again changes nothing.
    const again = await apply(b, doc, applied.body.experiment_id);
    expect(again.status).toBe(200);
    expect(again.body.changes.filter((c) => c.action !== "unchanged")).toEqual([]);
    expect(await exportOf(b, applied.body.experiment_id)).toEqual(doc);
  });

  it("plans an edit field by field and changes nothing until applied", async () => {
    const study = await richStudy(a, "plan");
    const doc = await exportOf(a, study.experiment.id);
    const edited: StudyDocument = {
      ...doc,
      description: "A new aim",
      arms: doc.arms.map((arm) =>
        arm.name === "Random" ? { ...arm, algorithm: { ...arm.algorithm, feed: "popularity" } } : arm,
      ),
    };
    const planned = await plan(a, stringify(edited), study.experiment.id);
    expect(planned.status, JSON.stringify(planned.body)).toBe(200);
    const changed = planned.body.changes.filter((c) => c.action !== "unchanged");
    expect(changed).toEqual([
      { resource: "experiment", name: doc.name, action: "update", fields: ["description"] },
      { resource: "arm", name: "Random", action: "update", fields: ["algorithm"] },
    ]);
    expect(await exportOf(a, study.experiment.id)).toEqual(doc);
    const applied = await apply(a, edited, study.experiment.id);
    expect(applied.body.changes).toEqual(planned.body.changes);
    expect(await exportOf(a, study.experiment.id)).toEqual(edited);
  });

  it("refuses on a running study exactly what the console refuses, with its words, and applies nothing", async () => {
    const study = await richStudy(a, "run");
    await a.patch(`/api/v1/admin/experiments/${study.experiment.id}`, { status: "running" });
    const doc = await exportOf(a, study.experiment.id);
    // Participants join both arms (weights 2:1; enough joins to fill each).
    for (let i = 0; i < 12; i++) await joinWith(source, study.experiment.id, `p-run-${i}`);
    const groups = (await a.get<Group[]>(`/api/v1/admin/experiments/${study.experiment.id}/groups`)).body;
    expect(groups.every((g) => g.participant_count > 0)).toBe(true);
    const console = await a.request("DELETE", `/api/v1/admin/groups/${groups[1]?.id}`);
    expect(console.status).toBe(409);
    const consoleWords = (console.body as ErrorAnswer).error.message;

    const edited: StudyDocument = { ...doc, description: "Changed", arms: doc.arms.slice(0, 1) };
    const planned = await plan(a, edited, study.experiment.id);
    expect(planned.status).toBe(200);
    expect(planned.body.changes.filter((c) => c.action === "refused")).toEqual([
      {
        resource: "arm",
        name: "Random",
        action: "refused",
        code: "group_has_participants",
        reason: consoleWords,
      },
    ]);
    const refused = await apply(a, edited, study.experiment.id);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("group_has_participants");
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ name: "Random", reason: consoleWords }),
    ]);
    expect(await exportOf(a, study.experiment.id)).toEqual(doc);
  });

  it("answers 422 with the path, line and column of an unknown field, a wrong type and a repeated name", async () => {
    const study = await richStudy(a, "bad");
    const doc = await exportOf(a, study.experiment.id);
    const arm0 = doc.arms[0] as StudyDocument["arms"][number];
    const cases: [StudyDocument | Record<string, unknown>, string][] = [
      [{ ...doc, colour: "blue" }, "colour"],
      [{ ...doc, arms: [{ ...arm0, weight: "heavy" }, ...doc.arms.slice(1)] }, "arms[0].weight"],
      [{ ...doc, arms: [...doc.arms, { ...arm0 }] }, "arms[2].name"],
    ];
    for (const [bad, path] of cases) {
      const text = stringify(bad);
      const r = await plan(a, text);
      expect(r.status, path).toBe(422);
      expect(r.body.error.code).toBe("invalid_definition");
      const details = r.body.error.details as { path: string; line: number; column: number }[];
      expect(details[0]?.path).toBe(path);
      // The line named holds the field.
      const line = text.split("\n")[(details[0]?.line ?? 0) - 1] ?? "";
      expect(line).toContain(
        path
          .split(".")
          .at(-1)
          ?.replace(/\[\d+\]$/, "") ?? "",
      );
    }
    const broken = await plan(a, "feedlab_study: 1\nname: [unclosed\n");
    expect(broken.status).toBe(422);
    expect((broken.body.error.details as { line?: number }[])[0]?.line).toBeGreaterThan(0);
  });

  it("never changes a layout, recommender or video another study uses: it makes copies, suffixed, and says so", async () => {
    const study = await richStudy(a, "shared");
    const before = await exportOf(a, study.experiment.id);
    const doc = await exportOf(a, study.experiment.id);
    process.env[headerEnvName("ext-shared", "Authorization")] = SECRET;
    const edited: StudyDocument = {
      ...doc,
      name: "Second study",
      layouts: doc.layouts?.map((l) => ({ ...l, source: `${l.source}\n// changed\n` })),
      recommenders: doc.recommenders?.map((r) => ({ ...r, config: { ...r.config, timeout_seconds: 4 } })),
      pool: doc.pool?.map((v, i) => (i === 0 ? { ...v, title: "Retitled" } : v)),
    };
    const applied = await apply(a, edited);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const copies = applied.body.changes.filter((c) => c.reason?.includes("copy"));
    expect(copies.map((c) => [c.resource, c.action])).toEqual([
      ["recommender", "create"],
      ["layout", "create"],
      ["video", "create"],
    ]);
    expect(copies.every((c) => c.reason?.includes(`"${study.experiment.name}"`))).toBe(true);
    expect(await exportOf(a, study.experiment.id)).toEqual(before);
    const second = await exportOf(a, applied.body.experiment_id);
    expect(second.recommenders?.map((r) => r.key)).toEqual(["ext-shared-copy"]);
    expect(second.layouts?.map((l) => l.name)).toEqual([`${doc.layouts?.[0]?.name} (copy)`]);
    expect(second.pool?.[0]).toMatchObject({ external_id: "shared-v1-copy", title: "Retitled" });
    // Applying it again finds the copies.
    const again = await apply(a, edited, applied.body.experiment_id);
    expect(again.body.changes.filter((c) => c.action !== "unchanged")).toEqual([]);
  });

  it("applies each shipped example to a server without it, and exports each as the file says", async () => {
    for (const name of ["demo-study", "layout-comparison", "recommender-comparison"]) {
      const text = readFileSync(new URL(`../../../examples/${name}.yaml`, import.meta.url), "utf8");
      const applied = await apply(b, text);
      expect(applied.status, `${name}: ${JSON.stringify(applied.body)}`).toBe(200);
      expect(await exportOf(b, applied.body.experiment_id)).toEqual(parse(text));
    }
  });

  it("names uploaded media by content, refuses a document whose files the server lacks, and applies once they are uploaded", async () => {
    const clip = readFileSync(new URL("../../../test/fixtures/media/clip-1.mp4", import.meta.url));
    const captions = readFileSync(new URL("../../../test/fixtures/media/captions-en.vtt", import.meta.url));
    const upload = async (to: Client, bytes: Buffer, name: string, fields: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      f.append("file", new Blob([new Uint8Array(bytes)]), name);
      const r = await to.request<{ url: string; sha256: string }>("POST", "/api/v1/admin/media", { form: f });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body;
    };
    const video = await upload(a, clip, "my clip.mp4", { kind: "video" });
    const track = await upload(a, captions, "captions-en.vtt", { kind: "captions", lang: "en" });
    const experiment = (await a.post<Experiment>("/api/v1/admin/experiments", { name: "Uploads" })).body;
    const made = await a.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [
        {
          external_id: "upload-1",
          url: video.url,
          title: "Uploaded",
          captions: [{ lang: "en", url: track.url }],
        },
      ],
    });
    await a.put(`/api/v1/admin/experiments/${experiment.id}/videos`, {
      video_ids: made.body.videos.map((v) => v.id),
    });
    const doc = await exportOf(a, experiment.id);
    expect(doc.pool?.[0]).toMatchObject({
      url: `media:${video.sha256}/my clip.mp4`,
      captions: [{ lang: "en", url: `media:${track.sha256}/captions-en.vtt` }],
    });

    // The target lacks both files: the plan says so, and applying refuses it whole.
    const planned = await plan(b, doc);
    expect(planned.status).toBe(200);
    expect(planned.body.changes.filter((c) => c.resource === "media")).toEqual([
      expect.objectContaining({ name: "my clip.mp4", action: "refused", code: "media_missing" }),
      expect.objectContaining({ name: "captions-en.vtt", action: "refused", code: "media_missing" }),
    ]);
    expect((await apply(b, doc)).status).toBe(409);
    // Uploaded there (any name: the content is what counts), the same document applies and exports alike.
    const there = await upload(b, clip, "my clip.mp4", { kind: "video" });
    await upload(b, captions, "captions-en.vtt", { kind: "captions", lang: "en" });
    const applied = await apply(b, doc);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const stored = (await b.get<Video[]>("/api/v1/admin/videos")).body.find(
      (v) => v.external_id === "upload-1",
    );
    expect(stored?.url).toBe(there.url);
    expect(await exportOf(b, applied.body.experiment_id)).toEqual(doc);
  });

  it("serves the document's JSON Schema and refuses exports and applies to anyone but the admin", async () => {
    const schema = await source
      .client()
      .get<{ properties: Record<string, { description?: string }> }>("/api/v1/schemas/study.json");
    expect(schema.status).toBe(200);
    expect(Object.keys(schema.body.properties)).toContain("arms");
    const anon = source.client();
    expect((await anon.post("/api/v1/admin/study-definitions/plan", { definition: "x" })).status).toBe(401);
    expect((await anon.post("/api/v1/admin/study-definitions/apply", { definition: "x" })).status).toBe(401);
    const study = await richStudy(a, "auth");
    expect((await anon.get(`/api/v1/admin/experiments/${study.experiment.id}/definition`)).status).toBe(401);
  });

  describe("a study file from elsewhere", () => {
    const recommender = (key: string, url: string, headers: Record<string, string>) => ({
      key,
      label: key,
      config: { url, headers },
    });
    const docWith = (name: string, r: ReturnType<typeof recommender>): StudyDocument =>
      ({
        feedlab_study: 1,
        name,
        arms: [
          {
            name: "A",
            weight: 1,
            algorithm: { feed: r.key, watch: "random" },
            ui: { feed: "grid-desktop", watch: "grid-desktop" },
          },
        ],
        recommenders: [r],
      }) as unknown as StudyDocument;
    const countExperiments = async () => (await b.get<Experiment[]>("/api/v1/admin/experiments")).body.length;

    it.each(["DATABASE_URL", "FEEDLAB_JOIN_SECRET", "FEEDLAB_EXT_STEAL_AUTHORIZATION", "HOME"])(
      "answers 422 invalid_definition for a header reading the variable %s, and stores nothing",
      async (name) => {
        process.env.FEEDLAB_EXT_STEAL_AUTHORIZATION = "old-export-secret";
        const before = await countExperiments();
        const doc = docWith(
          `Steal ${name}`,
          recommender("ext-steal", "http://127.0.0.1:9/collect", { "X-Leak": `\${${name}}` }),
        );
        for (const answer of [await plan(b, doc), await apply(b, doc)]) {
          expect(answer.status).toBe(422);
          expect(answer.body.error.code).toBe("invalid_definition");
          expect(answer.body.error.details).toEqual([
            expect.objectContaining({
              path: "recommenders[0].config.headers.X-Leak",
              message: expect.stringContaining("FEEDLAB_SECRET_"),
            }),
          ]);
          expect(JSON.stringify(answer.body)).not.toContain(process.env[name] ?? "\u0000");
        }
        expect(await countExperiments()).toBe(before);
        expect((await b.get("/api/v1/admin/recommenders/ext-steal")).status).toBe(404);
        delete process.env.FEEDLAB_EXT_STEAL_AUTHORIZATION;
      },
    );

    it("keeps a stored header value only while the recommender's URL keeps its origin", async () => {
      const env = headerEnvName("ext-moved", "Authorization");
      const ref = { Authorization: `\${${env}}` };
      process.env[env] = "lab-token";
      const first = await apply(
        b,
        docWith("Moved", recommender("ext-moved", "http://127.0.0.1:7001/a", ref)),
      );
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      delete process.env[env];
      // Same origin, another path, no variable (or the mask): the stored token is kept.
      for (const value of [ref, { Authorization: "********" }]) {
        const same = await apply(
          b,
          docWith("Moved", recommender("ext-moved", "http://127.0.0.1:7001/b", value)),
          first.body.experiment_id,
        );
        expect(same.status, JSON.stringify(same.body)).toBe(200);
      }
      expect(await storedHeaders(target, "ext-moved")).toEqual({ Authorization: "lab-token" });
      // Another port, host or scheme: the token would follow the URL there, so the variable is needed.
      for (const url of [
        "http://127.0.0.1:7002/b",
        "http://collector.example/b",
        "https://127.0.0.1:7001/b",
      ]) {
        for (const value of [ref, { Authorization: "********" }]) {
          const moved = await apply(
            b,
            docWith("Moved", recommender("ext-moved", url, value)),
            first.body.experiment_id,
          );
          expect(moved.status, url).toBe(422);
          expect(moved.body.error.code).toBe("invalid_definition");
          expect(moved.body.error.details).toEqual([
            expect.objectContaining({ path: "recommenders[0].config.headers.Authorization" }),
          ]);
        }
      }
      expect(await storedHeaders(target, "ext-moved")).toEqual({ Authorization: "lab-token" });
      const url = (await b.get<RecommenderView>("/api/v1/admin/recommenders/ext-moved")).body.config.url;
      expect(url).toBe("http://127.0.0.1:7001/b");
    });

    it("answers 422 invalid_definition saying blocked_address for a recommender at a cloud metadata address", async () => {
      const before = await countExperiments();
      const doc = docWith(
        "Metadata",
        recommender("ext-metadata", "http://169.254.169.254/latest/meta-data/", {}),
      );
      const answer = await apply(b, doc);
      expect(answer.status).toBe(422);
      expect(answer.body.error.code).toBe("invalid_definition");
      expect(answer.body.error.details).toEqual([
        expect.objectContaining({
          path: "recommenders[0].config.url",
          message: expect.stringContaining("blocked_address"),
        }),
      ]);
      expect(await countExperiments()).toBe(before);
    });
  });
});
