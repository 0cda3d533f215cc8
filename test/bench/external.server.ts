// Worker thread of the external benchmark: a slow external recommender. It answers every call after
// `delayMs` with the ranking `expectedIds(user_id)` (21 pool UUIDs chosen from the user id), and
// reports how many calls it had in flight at most.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { expectedIds } from "./external-ranking.ts";

const { delayMs, videoIds } = workerData as { delayMs: number; videoIds: string[] };
let inFlight = 0;
let maxInFlight = 0;
let calls = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    calls++;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { user_id: string; limit: number };
    setTimeout(() => {
      inFlight--;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ video_ids: expectedIds(body.user_id, videoIds, body.limit) }));
    }, delayMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  parentPort?.postMessage({ type: "ready", port: (server.address() as AddressInfo).port });
});
parentPort?.on("message", (m: { type: string }) => {
  if (m.type === "report") parentPort?.postMessage({ type: "report", calls, maxInFlight, inFlight });
  if (m.type === "close") server.close(() => process.exit(0));
});
