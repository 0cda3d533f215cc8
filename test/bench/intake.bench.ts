import { randomUUID } from "node:crypto";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import type { Client } from "../harness/app.ts";
import { createStudy } from "../harness/fixtures.ts";
import { cpuSecondsOf, machineCpuSeconds } from "./proc.ts";
import { percentile, startServer } from "./support.ts";

/** A running deployment to measure: its API origin, an admin client, and how to tear it down. */
export interface Deployment {
  readonly url: string;
  admin(): Promise<Client>;
  peakRssMb(): number;
  /** Feedlab's processes by role, whose CPU the benchmark reports. */
  readonly pids: Readonly<Record<string, number | undefined>>;
  stop(): Promise<void>;
}

export const name = "intake";
export const description =
  "Events accepted and fully projected per second on the embedded default (PGlite + embedded log), several concurrent clients sending realistic batches; projection lag p50/p99 at half that load; floor: the engine writing the same rows with Feedlab's statements, 2,000 events a transaction, no HTTP, validation or log machinery (goals: 70% of the floor and 10,000/s if it allows; lag p99 < 200 ms)";

const NORMAL: EventType[] = [
  "PAGE_LOAD",
  "IMPRESSION",
  "THUMBNAIL_HOVER",
  "VIDEO_PLAY",
  "VIDEO_PAUSE",
  "VIDEO_WATCHED_1S",
  "VIDEO_WATCHED_5S",
  "FEED_CLICK",
  "NAVIGATION",
  "VIDEO_META_CAPTURED",
  "HOME_FEED",
];
const HIGH: EventType[] = ["MOUSE_MOVEMENT", "SCROLL", "VIEWPORT_VISIBILITY", "VIDEO_PROGRESS"];

export interface Participant {
  client: Client;
  sessionId: string;
  seq: number;
}

/** A batch as a participant's browser sends it: 20 normal events, or 50 high-frequency ones. */
export function batch(p: Pick<Participant, "seq">, videos: readonly string[], highFrequency: boolean) {
  const types = highFrequency ? HIGH : NORMAL;
  const size = highFrequency ? 50 : 20;
  const now = Date.now();
  return Array.from({ length: size }, (_, i) => {
    const type = types[(p.seq + i) % types.length] as EventType;
    const fields = exampleRowFields(type);
    return {
      event_id: randomUUID(),
      event_type: type,
      timestamp: new Date(now + i).toISOString(),
      payload: EXAMPLE_PAYLOADS[type],
      ...fields,
      ...(fields.video_id ? { video_id: videos[(p.seq + i) % videos.length] } : {}),
      seq: p.seq++,
    };
  });
}

async function send(p: Participant, events: unknown[]): Promise<string> {
  const r = await p.client.post<{ accepted: number; position: string }>("/api/v1/events", {
    session_id: p.sessionId,
    events,
  });
  if (r.status !== 202) throw new Error(`intake answered ${r.status}: ${r.text.slice(0, 200)}`);
  return r.body.position;
}

export async function run() {
  const server = await startServer();
  const result = await measure({ ...server, pids: { server: server.child.pid } });
  const { embeddedFloor } = await import("./intake-floor.ts");
  const floor = await embeddedFloor(Math.min(200_000, Math.max(40_000, Number(result["events sent"]))));
  const projected = Number(result["accepted + projected events/s"]);
  return {
    ...result,
    "floor: the engine writing the same rows (events/s)": Math.round(floor.rate),
    "floor CPU ms per 1,000 events (the engine writing them, this process)": Math.round(floor.cpuMsPer1000),
    "accepted + projected / floor": Number((projected / floor.rate).toFixed(2)),
    "lag floor: a batch of 26 events written alone, p50 / p99 (ms)": `${floor.batchP50.toFixed(1)} / ${floor.batchP99.toFixed(1)}`,
  };
}

/** Waits until the projector has applied everything in the log (the API's lag gauge reads 0). */
async function projected(admin: Client): Promise<void> {
  for (;;) {
    const m = await admin.get("/metrics");
    if (/^feedlab_projector_lag_records 0$/m.test(m.text)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function measure(server: Deployment, options: { seconds?: number; clients?: number } = {}) {
  const seconds = options.seconds ?? 15;
  // A study that sends thousands of events a second has hundreds of participants, each browser
  // sending its own batches: 32 connections back to back stand for them. With 8, the figure was the
  // round trip of one batch more than what the deployment can take. FEEDLAB_BENCH_CLIENTS sets another.
  const clients = options.clients ?? Number(process.env.FEEDLAB_BENCH_CLIENTS ?? 32);
  try {
    const admin = await server.admin();
    const study = await createStudy(admin, { videoCount: 50, status: "running", weights: [1, 1] });
    const videos = study.videos.map((v) => v.external_id);
    const participants: Participant[] = [];
    for (let i = 0; i < clients * 4; i++) {
      const { Client } = await import("../harness/app.ts");
      const client = new Client(server.url);
      await client.post("/api/v1/participants/join", {
        experiment_id: study.experiment.id,
        login_id: `bench-${i}`,
      });
      const sessionId = randomUUID();
      await client.post("/sessions", { session_id: sessionId });
      participants.push({ client, sessionId, seq: 0 });
    }

    // 1. Sustained load: every client sends batches back to back (4 normal : 1 high-frequency).
    // Where the machine's CPU goes meanwhile: Feedlab's processes, this generator, and the rest (the
    // database, the broker, other tenants of the machine).
    const cpuAt = () => ({
      machine: machineCpuSeconds(),
      roles: Object.fromEntries(
        Object.entries(server.pids).map(([role, pid]) => [role, cpuSecondsOf(pid) ?? 0]),
      ),
    });
    /** Starts counting; the function it answers says where the CPU went since, over `wall` seconds. */
    const cpuFrom = () => {
      const before = cpuAt();
      const generatorBefore = process.cpuUsage();
      return (wall: number) => {
        const after = cpuAt();
        const generator = process.cpuUsage(generatorBefore);
        const pct = (seconds: number) => `${Math.round((100 * seconds) / wall)}%`;
        const roles = Object.entries(after.roles).map(
          ([role, s]) => `${role} ${pct(s - (before.roles[role] ?? 0))}`,
        );
        const busy = after.machine.busy - before.machine.busy;
        const total = busy + after.machine.idle - before.machine.idle;
        return `machine ${Math.round((100 * busy) / total)}% busy; of one core: ${roles.join(", ")}, generator ${pct((generator.user + generator.system) / 1e6)}`;
      };
    };
    const cpuDuringLoad = cpuFrom();
    const rolesAtStart = cpuAt().roles;
    let accepted = 0;
    const start = performance.now();
    const until = start + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        let n = 0;
        while (performance.now() < until) {
          const p = participants[(c + clients * (n % 4)) % participants.length] as Participant;
          const events = batch(p, videos, n % 5 === 4);
          await send(p, events);
          accepted += events.length;
          n++;
        }
      }),
    );
    const acceptSeconds = (performance.now() - start) / 1000;
    const cpu = cpuDuringLoad(acceptSeconds);
    const rolesAccepted = cpuAt().roles;
    // 2. Until everything accepted is projected.
    await projected(admin);
    const rolesProjected = cpuAt().roles;
    // CPU per 1,000 events of each process, comparable across machines where a rate is not: a process
    // that accepts counts until the load ends, one that projects until every event is in the read models.
    const perThousand = (role: string) => {
      const until = role === "api" ? rolesAccepted : rolesProjected;
      return ((until[role] ?? 0) - (rolesAtStart[role] ?? 0)) * 1000 * (1000 / accepted);
    };
    const costs = Object.keys(server.pids).map((role) => `${role} ${perThousand(role).toFixed(0)}`);
    const projectedSeconds = (performance.now() - start) / 1000;
    const acceptedRate = accepted / acceptSeconds;
    const projectedRate = accepted / projectedSeconds;

    // 3. Half load, open loop: batches at a fixed rate; lag = 202 to the projections passing the batch.
    const halfRate = projectedRate / 2;
    const batchesPerSecond = halfRate / 26; // mean batch size of the 4:1 mix
    const lags: number[] = [];
    const cpuDuringHalfLoad = cpuFrom();
    const lagStart = performance.now();
    const inflight: Promise<void>[] = [];
    let i = 0;
    while (performance.now() - lagStart < 10_000) {
      const due = lagStart + (i * 1000) / batchesPerSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const p = participants[i % participants.length] as Participant;
      const events = batch(p, videos, i % 5 === 4);
      i++;
      inflight.push(
        (async () => {
          const position = await send(p, events);
          const t0 = performance.now();
          const r = await p.client.get(`/feed?session_id=${p.sessionId}&limit=1&after=${position}`);
          if (r.headers.get("x-feedlab-read-after") === "reached") lags.push(performance.now() - t0);
          else lags.push(Number.POSITIVE_INFINITY);
        })(),
      );
    }
    await Promise.all(inflight);
    const halfCpu = cpuDuringHalfLoad((performance.now() - lagStart) / 1000);
    lags.sort((a, b) => a - b);
    return {
      "clients (concurrent)": clients,
      "events sent": accepted,
      "accepted events/s": Math.round(acceptedRate),
      "accepted + projected events/s": Math.round(projectedRate),
      "half load (events/s)": Math.round(halfRate),
      "lag p50 at half load (ms)": Math.round(percentile(lags, 50)),
      "lag p99 at half load (ms)": Math.round(percentile(lags, 99)),
      "peak RSS of the Feedlab processes (MB)": server.peakRssMb(),
      "CPU during the sustained load": cpu,
      "CPU ms per 1,000 events accepted and projected": costs.join(", "),
      ...Object.fromEntries(
        Object.keys(server.pids).map((role) => [
          `CPU ms per 1,000 events: ${role}`,
          Math.round(perThousand(role)),
        ]),
      ),
      "CPU at half load": halfCpu,
    };
  } finally {
    await server.stop();
  }
}
