import { randomUUID } from "node:crypto";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import { Client } from "../harness/app.ts";
import { createStudy } from "../harness/fixtures.ts";
import { embeddedBatchesFloor, loggedEventOf } from "./intake-floor.ts";
import { percentile, startServer } from "./support.ts";

export const name = "catch-up";
export const description =
  "One participant's tab catching up: batches of 50 MOUSE_MOVEMENT events sent into one session back to back on the embedded default, in three orders: by seq; as the tracker's buffers flush them (each normal batch older than the pointer batch before it); without seq, client times overlapping between batches. Figures: events/s, a batch's p50/p90, and the mean of the last sixth of the batches over the first (a session's growing size must not slow its batches: the regression of 2026-11-29 went 2.4x); floor: the engine writing the same batches, in order, alone, with Feedlab's statements (goal: 0.5 of the floor in every order, last/first under 1.3)";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 240);
const NORMAL: EventType[] = ["VIDEO_PROGRESS", "SCROLL", "VIEWPORT_VISIBILITY", "VISIBILITY_CHANGE"];

type Order = "by seq" | "as the tracker flushes" | "no seq, overlapping times";
interface Wire {
  event_id: string;
  event_type: EventType;
  timestamp: string;
  seq?: number;
  payload: unknown;
}

function wire(type: EventType, at: number, seq: number | undefined): Wire {
  return {
    event_id: randomUUID(),
    event_type: type,
    timestamp: new Date(at).toISOString(),
    payload:
      type === "VISIBILITY_CHANGE" ? { visible: true, visibilityState: "visible" } : EXAMPLE_PAYLOADS[type],
    ...exampleRowFields(type),
    ...(seq === undefined ? {} : { seq }),
  };
}

/** The batches of one order: 50 events each, 40 ms of client time apart. */
function batchesOf(order: Order): Wire[][] {
  const t0 = Date.now() - BATCHES * 40;
  const out: Wire[][] = [];
  let seq = 0;
  const late: Wire[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const at = t0 + b * 40;
    if (order === "no seq, overlapping times") {
      // As a generator stamping each batch from its own clock: each batch starts before the last ended.
      out.push(Array.from({ length: 50 }, (_, i) => wire("MOUSE_MOVEMENT", at + i, undefined)));
      continue;
    }
    const pointer: Wire[] = [];
    for (let i = 0; i < 50; i++) {
      // Every 25th event is a normal one, which waits in its own buffer.
      if (order === "as the tracker flushes" && i % 25 === 0)
        late.push(wire(NORMAL[(b + i) % NORMAL.length] as EventType, at + i * 0.8, seq++));
      pointer.push(wire("MOUSE_MOVEMENT", at + i * 0.8, seq++));
    }
    out.push(pointer);
    if (late.length >= 20) out.push(late.splice(0));
  }
  if (late.length > 0) out.push(late.splice(0));
  return out;
}

async function sendAll(api: string, experimentId: string, batches: readonly Wire[][]) {
  const client = new Client(api);
  await client.post("/api/v1/participants/join", {
    experiment_id: experimentId,
    login_id: `catch-up-${randomUUID().slice(0, 8)}`,
  });
  const sessionId = randomUUID();
  await client.post("/sessions", { session_id: sessionId });
  const times: number[] = [];
  const start = performance.now();
  for (const events of batches) {
    const t = performance.now();
    const r = await client.post("/api/v1/events", { session_id: sessionId, events });
    if (r.status !== 202) throw new Error(`intake answered ${r.status}: ${r.text.slice(0, 200)}`);
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - start) / 1000;
  const sixth = Math.max(1, Math.floor(times.length / 6));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const growth = mean(times.slice(-sixth)) / mean(times.slice(0, sixth));
  const sorted = [...times].sort((a, b) => a - b);
  return {
    rate: batches.flat().length / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    growth,
  };
}

export async function run() {
  const server = await startServer();
  const out: Record<string, string | number> = {};
  const rates: Record<string, number> = {};
  try {
    const admin = await server.admin();
    const study = await createStudy(admin, { videoCount: 5, status: "running", weights: [1] });
    for (const order of ["by seq", "as the tracker flushes", "no seq, overlapping times"] as Order[]) {
      const r = await sendAll(server.url, study.experiment.id, batchesOf(order));
      rates[order] = r.rate;
      out[`${order}: events/s`] = Math.round(r.rate);
      out[`${order}: a batch, p50 / p90 (ms)`] = `${r.p50.toFixed(1)} / ${r.p90.toFixed(1)}`;
      out[`${order}: the last sixth's batches over the first's`] = Number(r.growth.toFixed(2));
    }
  } finally {
    await server.stop();
  }
  // The floor: the in-order batches of one session written alone through the engine.
  const id = randomUUID();
  const who = { session: id, user: id, login: "catch-up", experiment: id, group: randomUUID() };
  const floorBatches = batchesOf("by seq").map((b) =>
    b.map((w) => loggedEventOf(w as unknown as Parameters<typeof loggedEventOf>[0], who)),
  );
  const floor = await embeddedBatchesFloor(floorBatches);
  out["floor: the engine writing the same batches alone (events/s)"] = Math.round(floor);
  for (const [order, rate] of Object.entries(rates))
    out[`${order}: over the floor`] = Number((rate / floor).toFixed(2));
  return out;
}
