import type { ImportSummary, Video } from "@feedlab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { videoInput } from "../../../test/harness/fixtures.ts";

describe.each(BACKENDS)("videos and pools (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
  });
  const count = async () => (await admin.get<Video[]>("/api/v1/admin/videos")).body.length;

  it("stores videos with their metadata and derives type and resolved_url from the url", async () => {
    const r = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [
        videoInput(1, { comments: [{ author: "Ana", text: "Great" }] }),
        videoInput(2, { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" }),
        videoInput(3, { url: "https://vimeo.com/76979871" }),
      ],
    });
    expect(r.status).toBe(201);
    const [native, yt, vimeo] = r.body.videos;
    expect(native).toMatchObject({
      type: "native",
      tags: ["demo", "t1"],
      comments: [{ author: "Ana", text: "Great" }],
      view_count: 1000,
    });
    expect(native?.resolved_url).toBe(native?.url);
    expect(yt).toMatchObject({ type: "youtube", resolved_url: "https://www.youtube.com/embed/dQw4w9WgXcQ" });
    expect(vimeo).toMatchObject({ type: "vimeo", resolved_url: "https://player.vimeo.com/video/76979871" });
    const read = await admin.get<Video>(`/api/v1/admin/videos/${native?.id}`);
    expect(read.body).toEqual(native);
  });

  it("refuses a whole batch with 422 naming the row's field when one video is invalid", async () => {
    const before = await count();
    const r = await admin.post("/api/v1/admin/videos", {
      videos: [videoInput(4), videoInput(5, { url: "not a url" })],
    });
    expect(r.status).toBe(422);
    expect((r.body as { error: { details: { field: string } } }).error.details.field).toBe("videos[1].url");
    expect(await count()).toBe(before);
  });

  it("answers 409 duplicate_external_id and stores nothing when an external_id exists", async () => {
    const first = videoInput(6);
    expect((await admin.post("/api/v1/admin/videos", { videos: [first] })).status).toBe(201);
    const before = await count();
    const r = await admin.post("/api/v1/admin/videos", {
      videos: [videoInput(7), { ...videoInput(8), external_id: first.external_id }],
    });
    expect(r.status).toBe(409);
    expect(codeOf(r)).toBe("duplicate_external_id");
    expect(await count()).toBe(before);
  });

  it("updates metadata and re-derives the type when the url changes", async () => {
    const { body } = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [videoInput(9)],
    });
    const id = body.videos[0]?.id;
    const r = await admin.patch<Video>(`/api/v1/admin/videos/${id}`, {
      title: "Renamed",
      url: "https://youtu.be/dQw4w9WgXcQ",
      tags: ["x"],
    });
    expect(r.body).toMatchObject({ title: "Renamed", type: "youtube", tags: ["x"] });
    expect((await admin.del(`/api/v1/admin/videos/${id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/admin/videos/${id}`)).status).toBe(404);
  });

  it("replaces the pool in order and answers 422 unknown_video leaving the pool as it was", async () => {
    const { body: exp } = await admin.post<{ id: string }>("/api/v1/admin/experiments", { name: "Pool" });
    const { body } = await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
      videos: [videoInput(10), videoInput(11)],
    });
    const ids = body.videos.map((v) => v.id).reverse();
    expect((await admin.put(`/api/v1/admin/experiments/${exp.id}/videos`, { video_ids: ids })).body).toEqual({
      video_ids: ids,
    });
    expect((await admin.get(`/api/v1/admin/experiments/${exp.id}/videos`)).body).toEqual({ video_ids: ids });
    const bad = await admin.put(`/api/v1/admin/experiments/${exp.id}/videos`, {
      video_ids: ["00000000-0000-4000-8000-000000000001"],
    });
    expect(bad.status).toBe(422);
    expect(codeOf(bad)).toBe("unknown_video");
    expect((await admin.get(`/api/v1/admin/experiments/${exp.id}/videos`)).body).toEqual({ video_ids: ids });
  });

  it("imports a CSV file row by row and lists each rejected row with its reason", async () => {
    const existing = videoInput(12);
    await admin.post("/api/v1/admin/videos", { videos: [existing] });
    const csv = [
      "external_id,url,title,channel_name,tags,duration_seconds,view_count,comments",
      'csv-a,https://cdn.example.org/a.webm,"Knots, explained",Rope Lab,sailing|knots,31,1200,"[{""author"":""Bo"",""text"":""Nice""}]"',
      "csv-b,ftp://nope,Bad url,,,,,",
      `${existing.external_id},https://cdn.example.org/c.webm,Exists,,,,,`,
      "csv-a,https://cdn.example.org/a2.webm,Repeat,,,,,",
      "csv-d,https://cdn.example.org/d.webm,Long video,,,ten,,",
      "csv-e,https://cdn.example.org/e.webm,Fine,,,,,",
    ].join("\n");
    const r = await admin.request<ImportSummary>("POST", "/api/v1/admin/videos/import", {
      body: csv,
      contentType: "text/csv",
    });
    expect(r.status).toBe(200);
    expect(r.body.imported).toBe(2);
    expect(r.body.updated).toBe(0);
    // csv-e has no view count: it is stored as unknown (null, not 0) and the summary counts it.
    expect(r.body.without_view_count).toBe(1);
    expect(r.body.rejected.map((x) => [x.row, x.code, x.field])).toEqual([
      [2, "validation_failed", "url"],
      [3, "duplicate_external_id", "external_id"],
      [4, "duplicate_external_id", "external_id"],
      [5, "validation_failed", "duration_seconds"],
    ]);
    const all = (await admin.get<Video[]>("/api/v1/admin/videos")).body;
    const a = all.find((v) => v.external_id === "csv-a");
    expect(a).toMatchObject({
      title: "Knots, explained",
      tags: ["sailing", "knots"],
      duration_seconds: 31,
      comments: [{ author: "Bo", text: "Nice" }],
    });
    expect(all.find((v) => v.external_id === "csv-e")?.view_count).toBeNull();
  });

  it("updates the stored videos of a file's external ids when asked, keeping their ids and pools", async () => {
    const stored = (
      await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", { videos: [videoInput(20)] })
    ).body.videos[0] as Video;
    const csv = [
      "external_id,url,title,duration_seconds,captions",
      `${stored.external_id},/media/uploads/new.mp4,Renamed,12,"[{""lang"":""en"",""url"":""/media/uploads/en.vtt""}]"`,
      "csv-new,/media/uploads/other.mp4,Brand new,,",
    ].join("\n");
    const refused = await admin.request<ImportSummary>("POST", "/api/v1/admin/videos/import", {
      body: csv,
      contentType: "text/csv",
    });
    expect(refused.body.rejected.map((x) => x.code)).toEqual(["duplicate_external_id"]);
    const r = await admin.request<ImportSummary>("POST", "/api/v1/admin/videos/import?update=true", {
      body: csv.replace("csv-new", "csv-new-2"),
      contentType: "text/csv",
    });
    expect(r.body).toEqual({ imported: 1, updated: 1, rejected: [], without_view_count: 1 });
    const after = (await admin.get<Video>(`/api/v1/admin/videos/${stored.id}`)).body;
    expect(after).toMatchObject({
      id: stored.id,
      title: "Renamed",
      url: "/media/uploads/new.mp4",
      duration_seconds: 12,
      channel_name: stored.channel_name,
      captions: [{ lang: "en", url: "/media/uploads/en.vtt" }],
    });
  });

  it("refuses a CSV file with a column that names no field (422 unknown_columns) and stores nothing", async () => {
    const before = await count();
    const r = await admin.request("POST", "/api/v1/admin/videos/import", {
      body: "external_id,url,titel\nu-1,/m/u.webm,Typo\n",
      contentType: "text/csv",
    });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("unknown_columns");
    expect(detailsOf(r)).toMatchObject({ columns: ["titel"], suggestions: { titel: "title" } });
    expect(await count()).toBe(before);
  });

  it("answers 422 invalid_file and stores nothing when the file cannot be parsed", async () => {
    const before = await count();
    const r = await admin.request("POST", "/api/v1/admin/videos/import", {
      body: '{"videos": [',
      contentType: "application/json",
    });
    expect(r.status).toBe(422);
    expect(codeOf(r)).toBe("invalid_file");
    const csv = await admin.request("POST", "/api/v1/admin/videos/import", {
      body: 'a,b\n"unclosed,2',
      contentType: "text/csv",
    });
    expect(codeOf(csv)).toBe("invalid_file");
    expect(await count()).toBe(before);
  });
});
