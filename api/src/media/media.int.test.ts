import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { AuditEntry, MediaUpload, Video } from "@feedlab/schemas";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  BACKENDS,
  type Client,
  codeOf,
  detailsOf,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import { videoInput } from "../../../test/harness/fixtures.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../../../test/fixtures/media");
const clip = readFileSync(path.join(FIXTURES, "clip-1.mp4"));
const captions = readFileSync(path.join(FIXTURES, "captions-en.vtt"));

/** A form with `file` (and fields sent before it). */
function form(bytes: Buffer, filename: string, fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append("file", new Blob([new Uint8Array(bytes)]), filename);
  return f;
}

/** Polls `check` until it holds (fails after 10 s). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("never happened");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Where a test app keeps its uploads, and what it holds there (files being received included). */
interface StoreUnderTest {
  readonly env: Record<string, string>;
  list(): Promise<string[]>;
  /** Shows a file while it is received (a folder does; a bucket shows nothing until it is whole). */
  readonly showsIncoming: boolean;
  close(): Promise<void>;
}

function folderStore(): StoreUnderTest {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-media-"));
  const list = async () => {
    const inFlight = (() => {
      try {
        return readdirSync(path.join(dir, ".incoming")).map((f) => `.incoming/${f}`);
      } catch {
        return [];
      }
    })();
    return [...readdirSync(dir).filter((f) => f !== ".incoming"), ...inFlight];
  };
  return {
    env: { FEEDLAB_MEDIA_DIR: dir },
    list,
    showsIncoming: true,
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** An S3-compatible server (s3rver) standing in for the object store a deployment would use. */
async function s3Store(): Promise<StoreUnderTest> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: "feedlab-media", configs: [] }],
  });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // The AWS SDK reads its credentials from the environment (s3rver accepts these); they go with the
  // server, as the next file in this worker shares the environment.
  const before = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = "S3RVER";
  process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
  const client = new S3Client({ region: "us-east-1", endpoint, forcePathStyle: true });
  return {
    env: {
      FEEDLAB_MEDIA_S3_BUCKET: "feedlab-media",
      FEEDLAB_MEDIA_S3_ENDPOINT: endpoint,
      FEEDLAB_MEDIA_S3_PREFIX: "uploads/",
    },
    list: async () =>
      ((await client.send(new ListObjectsV2Command({ Bucket: "feedlab-media" }))).Contents ?? [])
        .map((o) => o.Key as string)
        .sort(),
    showsIncoming: false,
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      restoreEnv("AWS_ACCESS_KEY_ID", before.id);
      restoreEnv("AWS_SECRET_ACCESS_KEY", before.secret);
    },
  };
}

// The folder store on both databases; the bucket on one (what it stores does not touch the database).
const CASES = [
  ...BACKENDS.map((backend) => ({ backend, store: "folder" as const })),
  { backend: "pglite" as const, store: "s3" as const },
];

describe.each(CASES)("media uploads ($backend, $store)", ({ backend, store: kind }) => {
  let app: TestApp;
  let admin: Client;
  let store: StoreUnderTest;
  const stored = () => store.list();
  const upload = (f: FormData, query = "") =>
    admin.request<MediaUpload>("POST", `/api/v1/admin/media${query}`, { form: f });

  beforeAll(async () => {
    store = kind === "folder" ? folderStore() : await s3Store();
    app = await startTestApp(backend, { env: { ...store.env, FEEDLAB_MAX_UPLOAD_MB: "1" } });
    admin = await app.admin();
  });
  afterAll(async () => {
    await app?.stop();
    await store?.close();
  });

  it("stores an MP4 whole and serves it with its type, lasting cache headers and Range requests", async () => {
    const r = await upload(form(clip, "my clip.mp4"));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ content_type: "video/mp4", bytes: clip.length, kind: "video" });
    expect(r.body.url).toMatch(/^\/media\/uploads\/[0-9a-f-]{36}\.mp4$/);

    const whole = await admin.download(r.body.url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("cache-control")).toContain("immutable");
    expect(whole.bytes.equals(clip)).toBe(true);

    const head = await fetch(`${app.url}${r.body.url}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(clip.length));
    expect(head.headers.get("content-type")).toBe("video/mp4");
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    const part = await app.client().download(r.body.url, { range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${clip.length}`);
    expect(part.bytes.equals(clip.subarray(100, 200))).toBe(true);

    // A suffix range (the last bytes): s3rver, the stand-in bucket, does not implement them (S3 does).
    if (kind === "folder") {
      const tail = await app.client().download(r.body.url, { range: "bytes=-10" });
      expect(tail.status).toBe(206);
      expect(tail.bytes.equals(clip.subarray(clip.length - 10))).toBe(true);
    }

    const beyond = await app.client().download(r.body.url, { range: `bytes=${clip.length + 10}-` });
    expect(beyond.status).toBe(416);
  });

  it("stores WebVTT captions with their language, and refuses captions without one (nothing stored)", async () => {
    const ok = await upload(form(captions, "en.vtt", { kind: "captions", lang: "en" }));
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ content_type: "text/vtt", kind: "captions", lang: "en" });
    const served = await app.client().download(ok.body.url);
    expect(served.headers.get("content-type")).toMatch(/^text\/vtt/);

    const viaQuery = await upload(form(captions, "pt.vtt"), "?kind=captions&lang=pt-br");
    expect(viaQuery.status).toBe(201);
    expect(viaQuery.body.lang).toBe("pt-BR");

    const before = await stored();
    const noLang = await upload(form(captions, "x.vtt", { kind: "captions" }));
    expect(noLang.status).toBe(422);
    expect(detailsOf<{ field: string }>(noLang)?.field).toBe("lang");
    expect(await stored()).toEqual(before);
  });

  it("answers 415 naming what the file is when its bytes are not of the kind asked for, and stores nothing", async () => {
    const before = await stored();
    const text = await upload(form(Buffer.from("name,title\nx,y\n"), "videos.mp4"));
    expect(text.status).toBe(415);
    expect(codeOf(text)).toBe("unsupported_media_type");
    const mp4AsCaptions = await upload(form(clip, "clip.vtt", { kind: "captions", lang: "en" }));
    expect(mp4AsCaptions.status).toBe(415);
    expect((mp4AsCaptions.body as unknown as { error: { message: string } }).error.message).toContain("MP4");
    expect(await stored()).toEqual(before);
  });

  it("answers 413 for a file over FEEDLAB_MAX_UPLOAD_MB and keeps none of it", async () => {
    const before = await stored();
    // 1.5 MB that starts like an MP4: read until the limit cuts it off.
    const big = Buffer.alloc(1.5 * 2 ** 20);
    clip.copy(big, 0, 0, 64);
    const r = await upload(form(big, "big.mp4"));
    expect(r.status).toBe(413);
    expect(codeOf(r)).toBe("upload_too_large");
    expect(await stored()).toEqual(before);
  });

  it("keeps nothing of an upload whose connection drops halfway", async () => {
    const before = await stored();
    const boundary = "feedlab-test-boundary";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const url = new URL("/api/v1/admin/media", app.url);
    const req = http.request(url, {
      method: "POST",
      headers: {
        cookie,
        "content-type": `multipart/form-data; boundary=${boundary}`,
        "content-length": String(head.length + clip.length + 64),
      },
    });
    // The store's saves of this upload, to know that it began receiving the file and when it ended.
    const saves: Promise<unknown>[] = [];
    const save = app.runtime.media.save.bind(app.runtime.media);
    const spy = vi.spyOn(app.runtime.media, "save").mockImplementation((...args) => {
      const saving = save(...args);
      saves.push(saving);
      return saving;
    });
    try {
      req.on("error", () => undefined);
      req.write(head);
      req.write(clip.subarray(0, clip.length / 2));
      // The store is receiving the file (and a folder shows it) before the connection drops.
      await until(async () => saves.length === 1);
      if (store.showsIncoming) {
        await until(async () => (await stored()).length > before.length);
        expect((await stored()).some((f) => f.startsWith(".incoming/"))).toBe(true);
      }
      req.destroy();
      // The save fails once the rest never comes; after that nothing writes to the store.
      expect((await Promise.allSettled(saves)).map((r) => r.status)).toEqual(["rejected"]);
      await until(async () => (await stored()).length === before.length);
      expect(await stored()).toEqual(before);
    } finally {
      spy.mockRestore();
    }
  });

  it("serves nothing outside the stored files (no traversal, no files being received)", async () => {
    // Raw requests: fetch would resolve the dot segments before sending.
    const statusOf = (p: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(new URL(app.url), { path: p }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
      });
    for (const p of [
      "/media/uploads/..%2F..%2F..%2Fetc%2Fpasswd",
      "/media/uploads/../../package.json",
      "/media/uploads/..%2f..%2fpackage.json",
      "/media/uploads/.incoming/x",
      "/media/uploads/%2e%2e/secret.mp4",
    ])
      expect(await statusOf(p), p).toBe(404);
  });

  it("tells the admin the largest upload accepted and where uploads are kept", async () => {
    const r = await admin.get("/api/v1/admin/media/settings");
    expect(r.body).toEqual({ max_upload_bytes: 2 ** 20, store: kind });
    expect((await app.client().get("/api/v1/admin/media/settings")).status).toBe(401);
  });

  it("takes uploads from the admin only, and records each in the audit log", async () => {
    const r = await app.client().request("POST", "/api/v1/admin/media", { form: form(clip, "c.mp4") });
    expect(r.status).toBe(401);
    const ok = await upload(form(clip, "c.mp4"));
    const audit = await admin.get<AuditEntry[]>("/api/v1/admin/audit");
    expect(audit.body.find((e) => e.action === "media.upload" && e.target === ok.body.url)).toMatchObject({
      admin: "admin",
    });
  });

  it("keeps a video's captions and lets PATCH edit every metadata field", async () => {
    const video = (
      await admin.post<{ videos: Video[] }>("/api/v1/admin/videos", {
        videos: [videoInput(1, { captions: [{ lang: "en", url: "/media/uploads/a.vtt" }] })],
      })
    ).body.videos[0] as Video;
    expect(video.captions).toEqual([{ lang: "en", url: "/media/uploads/a.vtt" }]);
    const edit = {
      url: "/media/uploads/00000000-0000-4000-8000-000000000001.mp4",
      title: "Edited title",
      channel_name: "Edited channel",
      category: "Science",
      description: "Edited description",
      tags: ["edited"],
      duration_seconds: 8,
      view_count: 12,
      thumbnail_url: "/media/uploads/00000000-0000-4000-8000-000000000002.jpg",
      published_at: "2026-02-03T04:05:06.000Z",
      comments: [{ author: "Bo", text: "Edited" }],
      captions: [
        { lang: "en", url: "/media/uploads/en.vtt", label: "English" },
        { lang: "fr", url: "/media/uploads/fr.vtt" },
      ],
    };
    const r = await admin.patch<Video>(`/api/v1/admin/videos/${video.id}`, edit);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      ...edit,
      type: "native",
      resolved_url: edit.url,
      external_id: video.external_id,
    });
    expect((await admin.get<Video>(`/api/v1/admin/videos/${video.id}`)).body).toEqual(r.body);

    const bad = await admin.patch(`/api/v1/admin/videos/${video.id}`, {
      captions: [{ lang: "english!", url: "/x.vtt" }],
    });
    expect(bad.status).toBe(422);
  });
});
