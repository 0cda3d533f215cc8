// `npm run bench -- uploads`: a 512 MB video uploaded to the media folder through
// POST /api/v1/admin/media (multipart, checked by its first bytes, received beside the other files
// and renamed when whole), against its floor: the same bytes sent to a plain node:http server that
// writes the request body to a file in the same folder, nothing parsed or checked (floor-http.server.ts).
// Figures: seconds and MB/s of each, the ratio, and the API process's resident memory before and at
// its peak (an upload streams: it should not grow with the file).
import { mkdtempSync, openAsBlob, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { memoryOf } from "./proc.ts";
import { startFloorServer, startServer } from "./support.ts";

export const name = "uploads";
export const description = "A 512 MB video upload against a plain HTTP server writing the body to disk";

const MB = Number(process.env.BENCH_UPLOAD_MB ?? 512);

export async function run(): Promise<Record<string, number | string>> {
  const dir = mkdtempSync(path.join(tmpdir(), "feedlab-uploads-bench-"));
  const file = path.join(dir, "video.mp4");
  // An MP4's first bytes (the type check reads them), then zeros.
  const head = readFileSync(path.join(import.meta.dirname, "../fixtures/media/clip-1.mp4")).subarray(0, 64);
  const body = Buffer.alloc(MB * 2 ** 20);
  head.copy(body);
  writeFileSync(file, body);
  const figures: Record<string, number | string> = {};
  try {
    const floor = await startFloorServer({ FLOOR_UPLOAD_DIR: dir });
    let floorSeconds: number;
    try {
      const t = performance.now();
      const r = await fetch(`${floor.url}/upload`, {
        method: "POST",
        body: await openAsBlob(file),
      });
      floorSeconds = (performance.now() - t) / 1000;
      if (r.status !== 201) throw new Error(`floor answered ${r.status}`);
    } finally {
      await floor.stop();
    }

    const server = await startServer({ FEEDLAB_MEDIA_DIR: path.join(dir, "media") });
    try {
      const admin = await server.admin();
      const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const idle = memoryOf(server.child.pid).rss;
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, memoryOf(server.child.pid).rss);
      }, 20);
      const form = new FormData();
      form.append("file", await openAsBlob(file), "video.mp4");
      const t = performance.now();
      const r = await fetch(`${server.url}/api/v1/admin/media`, {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      const seconds = (performance.now() - t) / 1000;
      clearInterval(sampler);
      if (r.status !== 201) throw new Error(`upload answered ${r.status}: ${await r.text()}`);
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
      figures["upload through POST /api/v1/admin/media"] =
        `${seconds.toFixed(2)} s (${Math.round(MB / seconds)} MB/s)`;
      figures["floor: node:http body to a file"] =
        `${floorSeconds.toFixed(2)} s (${Math.round(MB / floorSeconds)} MB/s)`;
      figures["upload / floor (time)"] = (seconds / floorSeconds).toFixed(2);
      figures["API RSS idle -> peak"] = `${mb(idle)} MB -> ${mb(peak)} MB (the file: ${MB} MB)`;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
