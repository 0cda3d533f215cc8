// The feed benchmark's load generator, in a process of its own (issue "Performance at the size of a real
// study"): its event loop, garbage collector and CPU are then its own, not the seeding process's, and
// where the machine has more than one core it runs pinned to the last one (`taskset`), apart from the
// server's cores. The parent sends jobs over IPC (`runJob` in generator.ts) and gets each LoadResult
// back with the generator's own pauses: its longest garbage collection, and how late its timer fired
// at worst (the event loop's delay), so a tail the generator made shows as such. The server is not
// pinned: on two cores, keeping it off the generator's core left it one core for its main thread and
// its database thread, and its tail grew tenfold (a p99 of 497 ms on one page).
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { GeneratorJob } from "./generator.ts";
import { closedLoop, getBytes, type LoadResult, openLoop } from "./load.ts";

// Bodies are never made into strings or parsed (`getBytes`): the checks count bytes in the Buffer, so
// the generator makes little garbage per request, and its collector's pauses, which delay every request
// due meanwhile, stay short.

/** How many times `needle` occurs in `body`. */
function occurrences(body: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** Each item of a feed page carries `propensity` once (the feed's schema). */
const ITEM = Buffer.from('"propensity":');
/** The floor's constant body begins so (floor-http.server.ts). */
const FLOOR = Buffer.from('{"items":[');

/** A page of the feed or a related list for one of the recommender's participants (feed.bench.ts). */
function pageRequests(job: Extract<GeneratorJob["target"], { kind: "page" }>) {
  let failures = 0;
  let bytes = 0;
  let answered = 0;
  const fire = async (i: number) => {
    const u = job.users[i % job.users.length];
    if (!u) return false;
    // Most requests are first pages; one in five asks for the second page.
    const offset = i % 5 === 4 ? 20 : 0;
    // The current video of a watch page is drawn like plays are (the cube of a uniform number over
    // the pool, as seeded): participants open popular videos more often.
    const current = job.videoIds[Math.floor(job.videoIds.length * Math.random() ** 3)];
    const path = job.surface === "feed" ? "/feed" : `/feed/${current}/related`;
    const res = await getBytes(`${job.url}${path}?session_id=${u.sessionId}&limit=20&offset=${offset}`, {
      cookie: u.cookie,
    });
    bytes += res.body.length;
    answered++;
    const good = res.status === 200 && occurrences(res.body, ITEM) === 20;
    if (!good && failures++ < 3)
      console.error(`  ${job.surface}: HTTP ${res.status} ${res.body.subarray(0, 300).toString()}`);
    return good;
  };
  return { fire, meanBytes: () => Math.round(bytes / Math.max(1, answered)) };
}

/** A request of the floor: the same work of the generator's, a constant body of `bytes`. */
function floorRequests(url: string, bytes: number) {
  const fire = async () => {
    const res = await getBytes(`${url}/floor?bytes=${bytes}`, {});
    return res.status === 200 && res.body.subarray(0, FLOOR.length).equals(FLOOR);
  };
  return { fire, meanBytes: () => bytes };
}

async function run(job: GeneratorJob): Promise<LoadResult & { meanBytes: number; loopDelayMaxMs: number }> {
  const target =
    job.target.kind === "page" ? pageRequests(job.target) : floorRequests(job.target.url, job.target.bytes);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const result =
    job.load.kind === "open"
      ? await openLoop(job.load.rate, job.seconds, target.fire, job.serverPid)
      : await closedLoop(job.load.concurrency, job.seconds, target.fire, job.serverPid);
  delay.disable();
  return { ...result, meanBytes: target.meanBytes(), loopDelayMaxMs: delay.max / 1e6 };
}

process.on("message", (job: GeneratorJob) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (err: unknown) => process.send?.({ error: String(err) }),
  );
});
