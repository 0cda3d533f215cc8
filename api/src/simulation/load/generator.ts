import { Agent } from "undici";
import { createParticipantModel } from "../behaviour.ts";
import { LoadStats } from "./load-stats.ts";
import { JoinLimited, runLoadParticipant } from "./participant.ts";
import type { GeneratorMessage, LoadPlan } from "./protocol.ts";

/** How often the generator reports its counters and the ids acknowledged meanwhile. */
const REPORT_EVERY_MS = 1000;
/** Participants arrive spread over this long at most (a quarter of the run when it is shorter). */
const RAMP_MS = 5000;

/** Login ids of a run's participants: `load-<runId>-<n>`, n from 1. */
const loginIdOf = (runId: string, n: number) => `load-${runId}-${n}`;

/**
 * When participant `i` of `n` arrives and leaves, in ms after the start: arrivals evenly over the ramp
 * (`arrivalMs`, by default the first 5 s; at most a quarter of the run), and each stays as long as the
 * others, so that departures are as spread as arrivals and the last one leaves at the end of the run.
 */
export function scheduleOf(
  i: number,
  n: number,
  durationS: number,
  arrivalMs = RAMP_MS,
): { arriveMs: number; leaveMs: number } {
  if (n <= 1) return { arriveMs: 0, leaveMs: durationS * 1000 };
  const ramp = Math.min(arrivalMs, (durationS * 1000) / 4);
  const arriveMs = Math.round((i * ramp) / n);
  return { arriveMs, leaveMs: arriveMs + durationS * 1000 - ramp };
}

/**
 * The load generator (issue 36, `feedlab simulate`): `plan.participants` load participants
 * (participant.ts), arriving over the first seconds and leaving as spread by the end of
 * `plan.durationS`, each then sending what is left. Reports counters and acknowledged ids every second, and the result once all have stopped.
 * A join's 429 is reported at once and ends the run (`join_limited`); the caller exits. Requests still
 * unanswered a timeout after the end are cut off (the connection pool is destroyed), so the run ends in
 * bounded time whatever the deployment does.
 */
export async function runGenerator(
  plan: LoadPlan,
  post: (m: GeneratorMessage) => void,
): Promise<"done" | "join_limited"> {
  const stats = new LoadStats();
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const start = Date.now();
  const until = start + plan.durationS * 1000;
  const report = () => {
    const ids = stats.takeAcknowledged();
    if (ids.length > 0) post({ kind: "acknowledged", ids });
    post({ kind: "progress", counters: stats.counters() });
  };
  const reporter = setInterval(report, REPORT_EVERY_MS);
  let cutOff: NodeJS.Timeout | undefined;
  const ended = new Promise<void>((resolve) => {
    cutOff = setTimeout(
      () => {
        stats.example(`requests still unanswered ${plan.timeoutMs / 1000} s after the end were cut off`);
        agent.destroy().then(resolve, resolve);
      },
      until - Date.now() + plan.timeoutMs + 5000,
    );
  });
  let limited: (e: JoinLimited) => void = () => {};
  const joinLimited = new Promise<JoinLimited>((resolve) => {
    limited = resolve;
  });
  const participants = Array.from({ length: plan.participants }, (_, i) => {
    const { arriveMs, leaveMs } = scheduleOf(i, plan.participants, plan.durationS, plan.arrivalMs);
    return runLoadParticipant({
      baseUrl: plan.url,
      dispatcher: agent,
      stats,
      timeoutMs: plan.timeoutMs,
      experimentId: plan.experimentId,
      loginId: loginIdOf(plan.runId, i + 1),
      model: createParticipantModel({ seed: plan.seed + i, pool: plan.pool }),
      startAt: start + arriveMs,
      until: start + leaveMs,
      lagEvery: plan.lagEvery,
      index: i,
    }).catch((e: unknown) => {
      if (e instanceof JoinLimited) limited(e);
      else stats.example(`a participant stopped: ${(e as Error).message}`);
    });
  });
  const outcome = await Promise.race([
    Promise.all(participants).then(() => null),
    ended.then(() => Promise.all(participants)).then(() => null),
    joinLimited,
  ]);
  clearInterval(reporter);
  clearTimeout(cutOff);
  if (outcome instanceof JoinLimited) {
    post({ kind: "join_limited", joined: stats.counters().joined, retryAfter: outcome.retryAfter });
    await agent.destroy().catch(() => {});
    return "join_limited";
  }
  report();
  post({ kind: "done", result: stats.result() });
  await agent.close().catch(() => {});
  return "done";
}
