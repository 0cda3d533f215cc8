import type { Group, RecommenderView } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, type Client, codeOf, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { joinWithSession } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { type FakeRecommender, startFakeRecommender } from "../../../test/harness/recommender-server.ts";

const BASE = "/api/v1/admin/recommenders";
const BUILTINS = ["random", "popularity", "recency", "similarity", "learned_model"];

interface ErrorReply {
  error: { code: string; message: string; details?: { field?: string; fields?: string[] } };
}
const fieldOf = (body: unknown) => (body as ErrorReply).error.details?.field;

describe.each(BACKENDS)("admin recommenders (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let fake: FakeRecommender;
  let n = 0;
  const key = () => `ext-${backend}-${++n}`;
  const register = (body: Record<string, unknown>) => admin.post<RecommenderView>(BASE, body);
  const external = (k: string, extra: Record<string, unknown> = {}) => ({
    key: k,
    kind: "external_http",
    label: `External ${k}`,
    config: { url: `${fake.url}/recommend` },
    ...extra,
  });

  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    fake = await startFakeRecommender();
  });
  afterAll(async () => {
    await fake?.close();
    await app?.stop();
  });

  it("lists the five built-ins first with kind builtin, both pages and an empty config", async () => {
    const r = await admin.get<RecommenderView[]>(BASE);
    expect(r.status).toBe(200);
    expect(r.body.slice(0, 5).map((x) => x.key)).toEqual(BUILTINS);
    for (const b of r.body.slice(0, 5)) {
      expect(b).toMatchObject({ kind: "builtin", supports_feed: true, supports_watch: true, config: {} });
      expect(b.label).not.toBe("");
    }
  });

  it("registers an external recommender with the documented defaults and answers 201 with the record", async () => {
    const k = key();
    const r = await register(external(k));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      key: k,
      kind: "external_http",
      label: `External ${k}`,
      description: "",
      category: "external",
      supports_feed: true,
      supports_watch: false,
      config: {
        url: `${fake.url}/recommend`,
        method: "POST",
        timeout_seconds: 5,
        headers: {},
        video_id_path: "video_ids",
      },
      used_by: [],
    });
    expect(r.body.config).not.toHaveProperty("body_template");
    expect(Date.parse(r.body.created_at ?? "")).not.toBeNaN();
    const list = await admin.get<RecommenderView[]>(BASE);
    expect(list.body.find((x) => x.key === k)).toEqual(r.body);
    expect((await admin.get(`${BASE}/${k}`)).body).toEqual(r.body);
  });

  it("answers 409 recommender_exists for a taken key, a built-in key included", async () => {
    const k = key();
    expect((await register(external(k))).status).toBe(201);
    const again = await register(external(k));
    expect(again.status).toBe(409);
    expect(codeOf(again)).toBe("recommender_exists");
    const builtin = await register(external("popularity"));
    expect(builtin.status).toBe(409);
    expect(codeOf(builtin)).toBe("recommender_exists");
  });

  it.each([
    ["key", { kind: "external_http", label: "x", config: { url: "http://r.example" } }, "key"],
    ["kind", { key: "nokind", label: "x", config: { url: "http://r.example" } }, "kind"],
    ["label", { key: "nolabel", kind: "external_http", config: { url: "http://r.example" } }, "label"],
    ["config", { key: "noconfig", kind: "external_http", label: "x" }, "config"],
    ["config.url", { key: "nourl", kind: "external_http", label: "x", config: {} }, "config.url"],
  ])("answers 422 naming %s when it is missing", async (_name, body, field) => {
    const r = await register(body);
    expect(r.status).toBe(422);
    expect(fieldOf(r.body)).toBe(field);
  });

  it.each([
    ["a builtin kind", { kind: "builtin" }, "kind"],
    ["a key with capitals", { key: "Bad-Key" }, "key"],
    ["a one-letter key", { key: "a" }, "key"],
    ["a URL that is not http", { config: { url: "file:///etc/passwd" } }, "config.url"],
    ["a PUT method", { config: { url: "http://r.example", method: "PUT" } }, "config.method"],
    [
      "a negative timeout",
      { config: { url: "http://r.example", timeout_seconds: -1 } },
      "config.timeout_seconds",
    ],
    [
      "a reserved header",
      { config: { url: "http://r.example", headers: { Host: "x" } } },
      "config.headers.Host",
    ],
    [
      "a broken id path",
      { config: { url: "http://r.example", video_id_path: "a..b" } },
      "config.video_id_path",
    ],
    ["an unknown field", { colour: "red" }, "colour"],
  ])("answers 422 for %s and stores nothing", async (_name, patch, field) => {
    const k = key();
    const r = await register({ ...external(k), ...patch });
    expect(r.status).toBe(422);
    expect(fieldOf(r.body)).toBe(field);
    const list = await admin.get<RecommenderView[]>(BASE);
    expect(list.body.map((x) => x.key)).not.toContain(k);
  });

  it("answers 404 for an unknown key on read, update and delete", async () => {
    expect((await admin.get(`${BASE}/nobody-here`)).status).toBe(404);
    expect((await admin.patch(`${BASE}/nobody-here`, { label: "x" })).status).toBe(404);
    const del = await admin.del(`${BASE}/nobody-here`);
    expect(del.status).toBe(404);
    expect(codeOf(del)).toBe("not_found");
  });

  it("changes a built-in's label, description and category, and keeps them", async () => {
    const r = await admin.patch<RecommenderView>(`${BASE}/recency`, {
      label: "Newest first",
      description: "By date",
      category: "simple",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      key: "recency",
      kind: "builtin",
      label: "Newest first",
      description: "By date",
      category: "simple",
      supports_feed: true,
      supports_watch: true,
      config: {},
    });
    const list = await admin.get<RecommenderView[]>(BASE);
    expect(list.body.find((x) => x.key === "recency")).toMatchObject({ label: "Newest first" });
    const restarted = await app.restart();
    app = restarted;
    admin = await app.admin();
    expect((await admin.get<RecommenderView>(`${BASE}/recency`)).body.label).toBe("Newest first");
  });

  it.each([
    ["supports_feed", { supports_feed: false }],
    ["supports_watch", { supports_watch: true }],
    ["config", { config: { url: "http://r.example" } }],
    ["config with a label", { label: "x", config: {} }],
    ["kind", { kind: "external_http" }],
  ])(
    "answers 400 builtin_immutable for a PATCH of %s on a built-in and changes nothing",
    async (_name, body) => {
      const before = await admin.get<RecommenderView>(`${BASE}/popularity`);
      const r = await admin.patch(`${BASE}/popularity`, body);
      expect(r.status).toBe(400);
      expect(codeOf(r)).toBe("builtin_immutable");
      expect((await admin.get<RecommenderView>(`${BASE}/popularity`)).body).toEqual(before.body);
    },
  );

  it.each(BUILTINS)("answers 400 builtin_immutable for DELETE of the built-in %s", async (k) => {
    const r = await admin.del(`${BASE}/${k}`);
    expect(r.status).toBe(400);
    expect(codeOf(r)).toBe("builtin_immutable");
    expect((await admin.get(`${BASE}/${k}`)).status).toBe(200);
  });

  it("updates an external recommender partly, merging config, and keeps key and kind", async () => {
    const k = key();
    await register(
      external(k, {
        config: { url: `${fake.url}/a`, headers: { "X-Api-Key": "one" }, body_template: { u: "{user_id}" } },
      }),
    );
    const r = await admin.patch<RecommenderView>(`${BASE}/${k}`, {
      label: "Renamed",
      supports_watch: true,
      config: { timeout_seconds: 1.5 },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      key: k,
      kind: "external_http",
      label: "Renamed",
      supports_watch: true,
      config: {
        url: `${fake.url}/a`,
        timeout_seconds: 1.5,
        headers: { "X-Api-Key": "********" },
        body_template: { u: "{user_id}" },
      },
    });
    const reset = await admin.patch<RecommenderView>(`${BASE}/${k}`, { config: { body_template: null } });
    expect(reset.body.config).not.toHaveProperty("body_template");
    expect((await admin.patch(`${BASE}/${k}`, { key: k, kind: "external_http", label: "Same" })).status).toBe(
      200,
    );
    const rename = await admin.patch(`${BASE}/${k}`, { key: "other-key" });
    expect(rename.status).toBe(422);
    expect(codeOf(rename)).toBe("immutable_field");
    const rekind = await admin.patch(`${BASE}/${k}`, { kind: "builtin" });
    expect(rekind.status).toBe(422);
    const bad = await admin.patch(`${BASE}/${k}`, { config: { url: "nope" } });
    expect(bad.status).toBe(422);
    expect(fieldOf(bad.body)).toBe("config.url");
    expect((await admin.get<RecommenderView>(`${BASE}/${k}`)).body.config.url).toBe(`${fake.url}/a`);
    expect((await admin.patch(`${BASE}/${k}`, {})).status).toBe(422);
  });

  it("refuses to assign a recommender to a page it does not support when a group is created or edited", async () => {
    const feedOnly = key();
    const watchOnly = key();
    await register(external(feedOnly));
    await register(external(watchOnly, { supports_feed: false, supports_watch: true }));
    const { experiment, groups } = await createStudy(admin, { weights: [1] });
    const group = groups[0] as Group;
    const asFeed = await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: watchOnly, watch: "recency" },
    });
    expect(asFeed.status).toBe(422);
    expect(codeOf(asFeed)).toBe("unsupported_surface");
    expect(fieldOf(asFeed.body)).toBe("algorithm_config.feed");
    const asWatch = await admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, {
      name: "x",
      algorithm_config: { feed: "recency", watch: feedOnly },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    expect(asWatch.status).toBe(422);
    expect(codeOf(asWatch)).toBe("unsupported_surface");
    expect(fieldOf(asWatch.body)).toBe("algorithm_config.watch");
    const ok = await admin.patch<Group>(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: feedOnly, watch: watchOnly },
      recommender_params: { [feedOnly]: { variant: "B" } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.algorithm_config).toEqual({ feed: feedOnly, watch: watchOnly });
    const unknown = await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: "not-registered", watch: "recency" },
    });
    expect(codeOf(unknown)).toBe("unknown_recommender");
    // A change of supports_* is a declaration: checked when a group is edited, not retroactively.
    expect((await admin.patch(`${BASE}/${watchOnly}`, { supports_watch: false })).status).toBe(200);
    const used = await admin.get<RecommenderView>(`${BASE}/${feedOnly}`);
    expect(used.body.used_by).toEqual([
      {
        group_id: group.id,
        group_name: group.name,
        experiment_id: experiment.id,
        experiment_name: experiment.name,
        pages: ["feed"],
      },
    ]);
  });

  it("deletes an external recommender a group uses; that group's next request answers 503 recommender_unavailable, and a new algorithm fixes it", async () => {
    const k = key();
    await register(external(k));
    const study = await createStudy(admin, { weights: [1], status: "running", videoCount: 3 });
    const group = study.groups[0] as Group;
    await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: k, watch: "recency" },
    });
    const viewer = await joinWithSession(app.client(), study.experiment.id, `viewer-${k}`);
    fake.setBehaviour(() => ({ json: { video_ids: study.videos.map((v) => v.id) } }));
    const before = await viewer.client.get<{ items: unknown[] }>(`/feed?session_id=${viewer.sessionId}`);
    expect(before.status).toBe(200);
    expect(before.body.items).toHaveLength(3);

    const del = await admin.del(`${BASE}/${k}`);
    expect(del.status).toBe(204);
    expect((await admin.get(`${BASE}/${k}`)).status).toBe(404);
    const after = await viewer.client.get(`/feed?session_id=${viewer.sessionId}`);
    expect(after.status).toBe(503);
    expect(codeOf(after)).toBe("recommender_unavailable");
    // The watch page still uses a built-in and keeps working.
    const related = await viewer.client.get(
      `/feed/${study.videos[0]?.id}/related?session_id=${viewer.sessionId}`,
    );
    expect(related.status).toBe(200);

    await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      algorithm_config: { feed: "recency", watch: "recency" },
    });
    expect((await viewer.client.get(`/feed?session_id=${viewer.sessionId}`)).status).toBe(200);
  });

  it("answers 401 without the admin cookie and 403 for a participant", async () => {
    expect((await app.client().get(BASE)).status).toBe(401);
    const study = await createStudy(admin, { weights: [1], status: "running" });
    const p = await joinWithSession(app.client(), study.experiment.id, "intruder");
    expect((await p.client.post(BASE, external(key()))).status).toBe(403);
  });

  it("documents the key parameter as a key, not a UUID, in the OpenAPI document", async () => {
    const doc = await app
      .client()
      .get<{ paths: Record<string, Record<string, { parameters: unknown[] }>> }>("/api/v1/openapi.json");
    const op = doc.body.paths["/api/v1/admin/recommenders/{key}"]?.patch;
    expect(op?.parameters).toEqual([
      expect.objectContaining({
        name: "key",
        in: "path",
        schema: expect.objectContaining({ type: "string" }),
      }),
    ]);
    expect(JSON.stringify(op?.parameters)).not.toContain("uuid");
  });

  describe("header values are write-only", () => {
    const TOKEN = "tok-lab-secret-4711";
    let study: StudyFixture;
    beforeAll(async () => {
      study = await createStudy(admin, { weights: [1], videoCount: 2 });
    });
    /** The headers the fake recommender received on a test call of `k` (with `config`, unsaved). */
    async function sentHeaders(k: string, config?: Record<string, unknown>) {
      const before = fake.calls.length;
      const r = await admin.post(`${BASE}/${k}/test`, {
        experiment_id: study.experiment.id,
        surface: "feed",
        ...(config ? { config } : {}),
      });
      expect(r.status, r.text).toBe(200);
      expect(fake.calls.length).toBe(before + 1);
      return fake.calls.at(-1)?.headers;
    }

    it("shows each header's name with ******** in every answer and the audit entry, and a write of ******** keeps the value", async () => {
      const k = key();
      const created = await register(
        external(k, { config: { url: `${fake.url}/a`, headers: { "X-Api-Key": TOKEN } } }),
      );
      expect(created.status).toBe(201);
      expect(created.body.config.headers).toEqual({ "X-Api-Key": "********" });
      const patched = await admin.patch<RecommenderView>(`${BASE}/${k}`, {
        label: "Renamed",
        config: { headers: { "X-Api-Key": "********", "X-Team": "blue" } },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.config.headers).toEqual({ "X-Api-Key": "********", "X-Team": "********" });
      const answers = [
        created,
        patched,
        await admin.get(`${BASE}/${k}`),
        await admin.get(BASE),
        await admin.get("/api/v1/admin/audit"),
      ];
      for (const a of answers) expect(a.text).not.toContain(TOKEN);
      const audit = answers[4]?.body as { action: string; target: string }[];
      expect(audit.filter((e) => e.target === k).map((e) => e.action)).toEqual(
        expect.arrayContaining(["recommender.create", "recommender.update"]),
      );
      // The service still gets the token; the console's unsaved form (masked values) too.
      expect(await sentHeaders(k)).toMatchObject({ "x-api-key": TOKEN, "x-team": "blue" });
      expect(
        await sentHeaders(k, { url: `${fake.url}/b`, headers: { "X-Api-Key": "********" } }),
      ).toMatchObject({ "x-api-key": TOKEN });
      // A new value replaces it.
      await admin.patch(`${BASE}/${k}`, { config: { headers: { "X-Api-Key": "tok-new" } } });
      expect(await sentHeaders(k)).toMatchObject({ "x-api-key": "tok-new" });
    });

    it("answers 422 for ******** where no value is stored, and stores nothing", async () => {
      const k = key();
      const r = await register(
        external(k, { config: { url: `${fake.url}/a`, headers: { "X-Api-Key": "********" } } }),
      );
      expect(r.status).toBe(422);
      expect(fieldOf(r.body)).toBe("config.headers.X-Api-Key");
      expect((await admin.get(`${BASE}/${k}`)).status).toBe(404);
      const stored = key();
      await register(external(stored));
      const p = await admin.patch(`${BASE}/${stored}`, { config: { headers: { "X-Other": "********" } } });
      expect(p.status).toBe(422);
      expect(fieldOf(p.body)).toBe("config.headers.X-Other");
    });
  });

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/latest/meta-data/",
    "http://[fe80::1]:8080/rec",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
  ])("answers 422 blocked_address for %s and stores nothing", async (url) => {
    const k = key();
    const r = await register(external(k, { config: { url } }));
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("blocked_address");
    expect(fieldOf(r.body)).toBe("config.url");
    expect((await admin.get(`${BASE}/${k}`)).status).toBe(404);
    const existing = key();
    await register(external(existing));
    const moved = await admin.patch(`${BASE}/${existing}`, { config: { url } });
    expect(moved.status).toBe(422);
    expect(codeOf(moved)).toBe("blocked_address");
    expect((await admin.get<RecommenderView>(`${BASE}/${existing}`)).body.config.url).toBe(
      `${fake.url}/recommend`,
    );
  });
});
