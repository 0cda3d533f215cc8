import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { isUuid, type Schedule } from "@feedlab/schemas";
import type { Config } from "../../config.ts";
import { AdminSession, LoadTestError } from "../../simulation/load/admin.ts";
import { progressLine, progressWriter } from "../../simulation/load/progress.ts";
import type { LoadPlan } from "../../simulation/load/protocol.ts";
import {
  judgeLevel,
  levelHeld,
  nextLevel,
  RAMP_DEFAULTS,
  type RampLevel,
  type RampPlan,
} from "../../simulation/load/ramp.ts";
import { runGeneratorProcess } from "../../simulation/load/run-generator.ts";
import { exitCodeOf, joinLimitMessage, reportLines, summarise } from "../../simulation/load/summary.ts";
import { checkStored } from "../../simulation/load/verify.ts";
import { type Command, err, out, UsageError } from "../command.ts";

/** Longest wait for one answer during the run; a request past it counts as unanswered. */
const REQUEST_TIMEOUT_MS = 15_000;
/** A lag sample follows every n-th batch of each participant. */
const LAG_EVERY = 4;
/** The exit code when a join was refused by the join rate limit (api.md). */
const JOIN_LIMITED = 3;

function wholeNumber(value: string | undefined, flag: string, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`);
  return n;
}

/**
 * What a study's schedule means for the run (api.md "Longitudinal studies (wave 4)"): load participants
 * are real participants, so the windows are the study's own, not compressed as a dry run's; each
 * participant begins a new session when its next window opens within the run (load/participant.ts).
 */
function scheduleNote(schedule: Schedule, durationS: number): string | null {
  const first = schedule[0];
  if (first === undefined) return null;
  const opensS = Math.round(first.opens_after_hours * 3600);
  return opensS < durationS
    ? `The study has a schedule: participants begin session 2 once its window opens, ${opensS} s after their first session began, and so on for later windows within the ${durationS} s.`
    : `The study has a schedule whose first window opens ${opensS} s after a participant's first session began, after the run's ${durationS} s: every participant stays in its first session.`;
}

/** One load run: `participants` new participants for `durationS` seconds, then the export check. */
async function runLevel(
  admin: AdminSession,
  target: Pick<LoadPlan, "url" | "experimentId" | "pool">,
  run: Pick<LoadPlan, "participants" | "durationS" | "seed" | "runId" | "arrivalMs">,
) {
  const { participants, durationS } = run;
  // Client timestamps of the run's events are this machine's clock from here on: the export's `since`.
  const since = new Date();
  const acknowledged = new Set<string>();
  const progress = progressWriter(process.stderr);
  const end = await runGeneratorProcess(
    {
      ...target,
      ...run,
      timeoutMs: REQUEST_TIMEOUT_MS,
      lagEvery: LAG_EVERY,
    },
    {
      onProgress: (c) => progress.update(progressLine(c, participants, durationS)),
      onAcknowledged: (ids) => {
        for (const id of ids) acknowledged.add(id);
      },
    },
  );
  progress.done();
  if (end.kind === "join_limited") return { kind: "join_limited" as const, end };
  if (end.kind === "crashed")
    throw new LoadTestError(`The load generator's process stopped (exit ${end.code ?? end.signal}).`);
  err(`Checking the ${acknowledged.size.toLocaleString("en-US")} acknowledged events in the export...`);
  const check = await checkStored(admin, target.experimentId, since, acknowledged, (stored) =>
    progress.update(
      `${stored.toLocaleString("en-US")} of ${acknowledged.size.toLocaleString("en-US")} acknowledged events in the export`,
    ),
  );
  progress.done();
  const summary = summarise(participants, end.result, acknowledged.size, check);
  return { kind: "done" as const, summary, result: end.result, check };
}

export const simulate: Command = {
  name: "simulate",
  usage:
    "simulate --url URL --experiment ID (--participants N | --ramp [--from N] [--max N]) --duration S [--seed X]",
  summary: [
    "Load-test a deployment: N participants join the running",
    "experiment over HTTP and browse at human pace for S seconds",
    "(one batch of events each every 5 s, plus their pages), with a",
    "live progress line; then requests/s, p50/p95/p99 per endpoint,",
    "events acknowledged and found in the export, projector lag, and",
    "a JSON line. A study with a schedule: each participant comes",
    "back in a new session once its next window opens in the run.",
    "--ramp: runs of S seconds (arrivals over the first quarter) from",
    "--from participants (10), doubled",
    "until one misses the targets (a p99 over 250 ms, any 5xx, any",
    "event missing), narrowed twice; prints the last level held.",
    "Admin from FEEDLAB_ADMIN_USERNAME/_PASSWORD. Exit",
    "0 passed (a level held), 1 failed, 3 stopped by FEEDLAB_JOIN_RATE_LIMIT",
  ],
  run: async (args: string[], config: Config) => {
    const { values } = parseArgs({
      args,
      options: {
        url: { type: "string" },
        experiment: { type: "string" },
        participants: { type: "string" },
        duration: { type: "string" },
        seed: { type: "string" },
        ramp: { type: "boolean" },
        from: { type: "string" },
        max: { type: "string" },
      },
    });
    if (values.url === undefined || !/^https?:\/\/[^/]/.test(values.url))
      throw new UsageError("--url must be the deployment's address, such as http://127.0.0.1:8080");
    const url = values.url.replace(/\/+$/, "");
    const experimentId = values.experiment ?? "";
    if (!isUuid(experimentId)) throw new UsageError("--experiment must be an experiment id");
    const ramp = values.ramp === true;
    if (ramp && values.participants !== undefined)
      throw new UsageError(
        "--ramp chooses the participants of each level: leave out --participants (use --from and --max)",
      );
    if (!ramp && (values.from !== undefined || values.max !== undefined))
      throw new UsageError("--from and --max belong to --ramp");
    const participants = ramp ? 0 : wholeNumber(values.participants, "--participants", 1, 100_000);
    const plan: RampPlan = {
      ...RAMP_DEFAULTS,
      ...(values.from === undefined ? {} : { from: wholeNumber(values.from, "--from", 1, 100_000) }),
      ...(values.max === undefined ? {} : { max: wholeNumber(values.max, "--max", 1, 100_000) }),
    };
    const durationS = wholeNumber(values.duration, "--duration", 1, 86_400);
    const seed = values.seed === undefined ? 1 : wholeNumber(values.seed, "--seed", 0, 2 ** 31 - 1);
    if (config.adminPassword === null)
      throw new UsageError(
        "Set FEEDLAB_ADMIN_USERNAME and FEEDLAB_ADMIN_PASSWORD to an admin of the deployment: the run checks its events in the admin export.",
      );

    const admin = new AdminSession(url);
    try {
      await admin.signIn(config.adminUsername, config.adminPassword);
      const experiment = await admin.runningExperiment(experimentId);
      const target = { url, experimentId, pool: await admin.pool(experimentId) };
      const scheduleLine = scheduleNote(experiment.schedule ?? [], durationS);
      if (ramp) {
        err(
          `Ramp of ${url} on "${experiment.name}": levels of ${durationS} s from ${plan.from} participants, raised until a level misses p99 <= ${plan.p99Ms} ms, no 5xx, no event missing`,
        );
        if (scheduleLine !== null) err(scheduleLine);
        const levels: RampLevel[] = [];
        for (let n = nextLevel(levels, plan); n !== null; n = nextLevel(levels, plan)) {
          err(`Level ${levels.length + 1}: ${n} participants`);
          // A level's participants arrive over its first quarter: a study's arrivals, not one burst.
          const level = await runLevel(admin, target, {
            participants: n,
            durationS,
            seed: seed + levels.length,
            runId: randomBytes(4).toString("hex"),
            arrivalMs: (durationS * 1000) / 4,
          });
          if (level.kind === "join_limited") {
            err(joinLimitMessage(n, level.end.joined, level.end.retryAfter));
            process.exitCode = JOIN_LIMITED;
            return;
          }
          const judged = judgeLevel(level.summary, plan);
          levels.push(judged);
          err(`  ${rampLine(judged)}`);
        }
        const held = levelHeld(levels);
        out(`Ramp of ${url}: ${levels.length} levels of ${durationS} s`);
        for (const l of levels) out(`  ${rampLine(l)}`);
        out(
          held === null
            ? `Held no level: even ${plan.from} participants missed the targets.`
            : `Held ${held} participants (p99 <= ${plan.p99Ms} ms, no 5xx, every event stored).`,
        );
        out(JSON.stringify({ held, targets: { p99_ms: plan.p99Ms }, duration_s: durationS, levels }));
        process.exitCode = held === null ? 1 : 0;
        return;
      }
      const runId = randomBytes(4).toString("hex");
      err(
        `Load test of ${url}: ${participants} participants for ${durationS} s on "${experiment.name}" (login ids load-${runId}-1 to -${participants})`,
      );
      if (scheduleLine !== null) err(scheduleLine);
      const run = await runLevel(admin, target, { participants, durationS, seed, runId });
      if (run.kind === "join_limited") {
        err(joinLimitMessage(participants, run.end.joined, run.end.retryAfter));
        process.exitCode = JOIN_LIMITED;
        return;
      }
      out(`Load test of ${url}: ${participants} participants for ${durationS} s`);
      for (const line of reportLines(run.summary, run.result, run.check)) out(line);
      out(JSON.stringify(run.summary));
      process.exitCode = exitCodeOf(run.summary);
    } catch (e) {
      if (!(e instanceof LoadTestError)) throw e;
      err(e.message);
      process.exitCode = 1;
    } finally {
      await admin.close();
    }
  },
};

/** A level of the ramp in one line. */
function rampLine(l: RampLevel): string {
  const p99 = l.p99_ms === null ? "-" : `${l.p99_ms.toFixed(0)} ms (${l.slowest})`;
  return `${String(l.participants).padStart(6)} participants: ${l.held ? "held" : "MISSED"}; ${l.requests_per_s} requests/s, slowest p99 ${p99}, ${l.errors_5xx} 5xx, ${l.events_missing} events missing${l.held ? "" : ` (${l.missed.join("; ")})`}`;
}
