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

/** Runs `send` (one upload) and reads the receiving process's RSS before it and at its peak (every 20 ms). */
async function measured(pid: number | undefined, send: () => Promise<Response>) {
  const idle = memoryOf(pid).rss;
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, memoryOf(pid).rss);
  }, 20);
  const t = performance.now();
  const r = await send();
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  if (r.status !== 201) throw new Error(`upload answered ${r.status}: ${await r.text()}`);
  return { seconds, idleMb: Math.round(idle / 2 ** 20), peakMb: Math.round(peak / 2 ** 20) };
}

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
    const floorServer = await startFloorServer({ FLOOR_UPLOAD_DIR: dir });
    let floor: Awaited<ReturnType<typeof measured>>;
    try {
      const blob = await openAsBlob(file);
      floor = await measured(floorServer.child.pid, () =>
        fetch(`${floorServer.url}/upload`, { method: "POST", body: blob }),
      );
    } finally {
      await floorServer.stop();
    }

    const server = await startServer({ FEEDLAB_MEDIA_DIR: path.join(dir, "media") });
    try {
      const admin = await server.admin();
      const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const form = new FormData();
      form.append("file", await openAsBlob(file), "video.mp4");
      const upload = await measured(server.child.pid, () =>
        fetch(`${server.url}/api/v1/admin/media`, { method: "POST", body: form, headers: { cookie } }),
      );
      const rate = (seconds: number) => `${seconds.toFixed(2)} s (${Math.round(MB / seconds)} MB/s)`;
      figures["upload through POST /api/v1/admin/media"] = rate(upload.seconds);
      figures["floor: node:http body to a file"] = rate(floor.seconds);
      figures["upload / floor (time)"] = (upload.seconds / floor.seconds).toFixed(2);
      figures["API RSS idle -> peak"] = `${upload.idleMb} MB -> ${upload.peakMb} MB`;
      figures["floor RSS idle -> peak"] = `${floor.idleMb} MB -> ${floor.peakMb} MB (the file: ${MB} MB)`;
      figures["RSS the upload adds: API / floor"] =
        `${upload.peakMb - upload.idleMb} MB / ${floor.peakMb - floor.idleMb} MB`;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
