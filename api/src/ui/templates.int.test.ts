import type { Group, UiTemplate } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { joinWithSession } from "../../../test/harness/events.ts";
import { createStudy, FEED_SOURCE, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { MAX_SOURCE_CHARS } from "./compile.ts";

describe.each(BACKENDS)("UI templates (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 3, status: "running", weights: [1] });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const create = (body: Record<string, unknown>) =>
    admin.post<UiTemplate>("/api/v1/admin/ui-templates", {
      name: "Layout",
      page: "feed",
      template_type: "code",
      ...body,
    });
  const count = async () => (await admin.get<UiTemplate[]>("/api/v1/admin/ui-templates")).body.length;

  it("stores a code template that compiles, at version 1", async () => {
    const r = await create({ source: FEED_SOURCE });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      page: "feed",
      template_type: "code",
      source: FEED_SOURCE,
      version: 1,
      used_by: [],
    });
    expect((await admin.get(`/api/v1/admin/ui-templates/${r.body.id}`)).body).toEqual(r.body);
  });

  it("answers 422 compile_error with the line and column, and stores nothing", async () => {
    const before = await count();
    const r = await create({
      source: "export default function Page() {\n  const n = ;\n  return <p>{n}</p>;\n}\n",
    });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("compile_error");
    expect(detailsOf<unknown[]>(r)).toEqual([{ line: 2, column: 13, message: expect.any(String) }]);
    expect(await count()).toBe(before);
  });

  it("answers 422 unknown_import for an import outside the platform namespace, naming it", async () => {
    const r = await create({ source: `import _ from "lodash";\nexport default () => <p>{_.x}</p>;` });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("unknown_import");
    expect(detailsOf(r)?.imports).toEqual(["lodash"]);
  });

  it("answers 422 no_default_export for a module without a default export", async () => {
    const r = await create({ source: "export const Page = () => <p>hi</p>;" });
    expect(codeOf(r)).toBe("no_default_export");
  });

  it("answers 422 naming the source when it is over the size limit", async () => {
    const r = await create({ source: `export default () => null;\n//${"x".repeat(MAX_SOURCE_CHARS)}` });
    expect(r.status).toBe(422);
    expect(detailsOf(r)?.field).toBe("source");
  });

  it("bumps the version when the source changes, not when only the name does", async () => {
    const { body: t } = await create({ source: FEED_SOURCE });
    const renamed = await admin.patch<UiTemplate>(`/api/v1/admin/ui-templates/${t.id}`, { name: "Renamed" });
    expect(renamed.body).toMatchObject({ name: "Renamed", version: 1 });
    const changed = await admin.patch<UiTemplate>(`/api/v1/admin/ui-templates/${t.id}`, {
      source: FEED_SOURCE.replace("Feed()", "Page()"),
    });
    expect(changed.body.version).toBe(2);
    const broken = await admin.patch(`/api/v1/admin/ui-templates/${t.id}`, { source: "export default (" });
    expect(codeOf(broken)).toBe("compile_error");
    expect((await admin.get<UiTemplate>(`/api/v1/admin/ui-templates/${t.id}`)).body.version).toBe(2);
  });

  it("lets a group use a template only for its page, and refuses to delete a template in use", async () => {
    const { body: t } = await create({ source: FEED_SOURCE });
    const group = study.groups[0] as Group;
    const wrongPage = await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      ui_config: { feed: "grid-desktop", watch: t.id },
    });
    expect(codeOf(wrongPage)).toBe("unknown_ui");
    const unknown = await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      ui_config: { feed: "5d1f3f0e-0000-4000-8000-000000000000", watch: "grid-desktop" },
    });
    expect(codeOf(unknown)).toBe("unknown_ui");
    const ok = await admin.patch<Group>(`/api/v1/admin/groups/${group.id}`, {
      ui_config: { feed: t.id, watch: "grid-desktop" },
    });
    expect(ok.body.ui_config.feed).toBe(t.id);

    const listed = await admin.get<UiTemplate>(`/api/v1/admin/ui-templates/${t.id}`);
    expect(listed.body.used_by).toEqual([expect.objectContaining({ group_id: group.id })]);
    const del = await admin.del(`/api/v1/admin/ui-templates/${t.id}`);
    expect(del.status).toBe(409);
    expect(codeOf(del)).toBe("template_in_use");
    const move = await admin.patch(`/api/v1/admin/ui-templates/${t.id}`, { page: "watch" });
    expect(codeOf(move)).toBe("template_in_use");

    // A participant of the group gets it, and its compiled module; not a template the group does not use.
    const p = await joinWithSession(app.client(), study.experiment.id, "templates-participant");
    const view = await p.client.get<{ module_url: string; version: number }>(`/api/v1/ui-templates/${t.id}`);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ id: t.id, page: "feed", template_type: "code", version: 1 });
    const module = await p.client.get(view.body.module_url);
    expect(module.status).toBe(200);
    expect(module.headers.get("content-type")).toMatch(/javascript/);
    expect(module.text).toContain("globalThis.__feedlab.modules");
    expect(module.text).not.toMatch(/^import /m);
    const { body: other } = await create({ source: FEED_SOURCE });
    expect((await p.client.get(`/api/v1/ui-templates/${other.id}`)).status).toBe(404);
    expect((await admin.get(`/api/v1/ui-templates/${t.id}`)).status).toBe(403);

    // A render error reaches the researcher.
    const report = await p.client.post(`/api/v1/ui-templates/${t.id}/render-errors`, {
      message: "TypeError: feed.items is undefined",
      version: 1,
    });
    expect(report.status).toBe(204);
    const seen = await admin.get<UiTemplate>(`/api/v1/admin/ui-templates/${t.id}`);
    expect(seen.body.last_render_error).toMatchObject({
      message: "TypeError: feed.items is undefined",
      version: 1,
    });

    await admin.patch(`/api/v1/admin/groups/${group.id}`, {
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    });
    expect((await admin.del(`/api/v1/admin/ui-templates/${t.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/admin/ui-templates/${t.id}`)).status).toBe(404);
  });

  const TREE = {
    type: "Page",
    children: [
      { type: "Text", props: { style: "heading", text: "Pick one" } },
      { type: "VideoList", props: { pageSize: 6 }, children: [{ type: "Thumbnail" }, { type: "Title" }] },
    ],
  };

  it("stores a blocks template, compiled from its TSX export, which the code track accepts as it is", async () => {
    const r = await create({ template_type: "blocks", tree: TREE });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ template_type: "blocks", tree: TREE, source: null, version: 1 });
    const exported = await admin.get(`/api/v1/admin/ui-templates/${r.body.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(exported.text).toContain(
      'import { Page, Text, Thumbnail, Title, VideoList } from "@feedlab/blocks";',
    );
    expect(exported.text).toContain("<VideoList pageSize={6}>");
    const asCode = await create({ source: exported.text });
    expect(asCode.status, JSON.stringify(asCode.body)).toBe(201);
    // A new tree is a new version; the same tree saved again is not.
    const same = await admin.patch<UiTemplate>(`/api/v1/admin/ui-templates/${r.body.id}`, {
      name: "Renamed",
      tree: TREE,
    });
    expect(same.body.version).toBe(1);
    const changed = await admin.patch<UiTemplate>(`/api/v1/admin/ui-templates/${r.body.id}`, {
      tree: { type: "Page", children: [{ type: "VideoList" }] },
    });
    expect(changed.body.version).toBe(2);
  });

  it("answers 422 invalid_tree with the offending node's path, and stores nothing", async () => {
    const before = await count();
    const bad = await create({
      template_type: "blocks",
      tree: {
        type: "Page",
        children: [{ type: "VideoList", children: [{ type: "Title", props: { size: 3 } }] }],
      },
    });
    expect(bad.status).toBe(422);
    expect(codeOf(bad)).toBe("invalid_tree");
    expect(detailsOf(bad)).toMatchObject({ field: "tree", path: "tree.children[0].children[0]" });
    const watchOnly = await create({
      template_type: "blocks",
      tree: { type: "Page", children: [{ type: "Player" }] },
    });
    expect(codeOf(watchOnly)).toBe("invalid_tree");
    expect(codeOf(await create({ template_type: "blocks" }))).toBe("missing_field");
    expect(await count()).toBe(before);
    // The same tree is fine on the watch page.
    const watch = await create({
      template_type: "blocks",
      page: "watch",
      tree: { type: "Page", children: [{ type: "Player" }] },
    });
    expect(watch.status).toBe(201);
  });
});
