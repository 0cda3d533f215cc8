// The floor of the serving benchmarks: a plain node:http server (no framework, no database) that
// answers every GET with a constant JSON body of `?bytes=N` bytes (default FLOOR_BYTES), on the port
// PORT. `GET /relay?user_id=U&limit=N` instead posts {user_id, limit} to RELAY_URL with undici's
// keep-alive pool (as Feedlab calls an external recommender) and answers its body (external.bench.ts).
// `POST /upload` writes the body to FLOOR_UPLOAD_DIR/upload.bin (uploads.bench.ts).
// Started as its own process, as `feedlab start` is, by feed.bench.ts and external.bench.ts.
import { createWriteStream } from "node:fs";
import http from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Agent, request } from "undici";

const relay = new Agent({ connections: 1024, keepAliveTimeout: 60_000 });

const bodies = new Map<number, Buffer>();
const bodyOf = (bytes: number) => {
  let body = bodies.get(bytes);
  if (!body) {
    // A JSON string padded to the size: the external benchmark parses it like a page, the feed
    // benchmark's generator checks its first bytes (generator.process.ts).
    body = Buffer.from(JSON.stringify({ items: [], pad: "x".repeat(Math.max(0, bytes - 21)) }));
    bodies.set(bytes, body);
  }
  return body;
};

const server = http.createServer((req, res) => {
  if (req.method === "POST" && req.url === "/upload") {
    // The uploads floor: the request's body written to a file as it comes, nothing parsed or checked.
    pipeline(req, createWriteStream(path.join(process.env.FLOOR_UPLOAD_DIR ?? "", "upload.bin"))).then(
      () => res.writeHead(201).end(),
      () => res.writeHead(500).end(),
    );
    return;
  }
  if (req.url?.startsWith("/relay?")) {
    const query = new URLSearchParams(req.url.slice("/relay?".length));
    request(process.env.RELAY_URL ?? "", {
      method: "POST",
      dispatcher: relay,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: query.get("user_id"), limit: Number(query.get("limit")) }),
    }).then(
      async (r) => {
        const body = Buffer.from(await r.body.arrayBuffer());
        res.writeHead(r.statusCode, { "content-type": "application/json", "content-length": body.length });
        res.end(body);
      },
      () => {
        res.writeHead(502).end();
      },
    );
    return;
  }
  const q = req.url?.indexOf("bytes=") ?? -1;
  const bytes = q >= 0 ? Number.parseInt(req.url?.slice(q + 6) ?? "", 10) : Number(process.env.FLOOR_BYTES);
  const body = bodyOf(Number.isFinite(bytes) ? bytes : 0);
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
