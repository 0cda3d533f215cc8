// The floor of the serving benchmarks: a plain node:http server (no framework, no database) that
// answers every GET with a constant JSON body of `?bytes=N` bytes (default FLOOR_BYTES), on the port
// PORT. Started as its own process, as `feedlab start` is, by feed.bench.ts.
import http from "node:http";

const bodies = new Map<number, Buffer>();
const bodyOf = (bytes: number) => {
  let body = bodies.get(bytes);
  if (!body) {
    // A JSON string padded to the size: the client parses it like a page.
    body = Buffer.from(JSON.stringify({ items: [], pad: "x".repeat(Math.max(0, bytes - 21)) }));
    bodies.set(bytes, body);
  }
  return body;
};

const server = http.createServer((req, res) => {
  const q = req.url?.indexOf("bytes=") ?? -1;
  const bytes = q >= 0 ? Number.parseInt(req.url?.slice(q + 6) ?? "", 10) : Number(process.env.FLOOR_BYTES);
  const body = bodyOf(Number.isFinite(bytes) ? bytes : 0);
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("listening"));
