import type { ModelRun, ModelRunStatus } from "../../types.ts";

export const RUN_STATUS_LABELS: Record<ModelRunStatus, string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
  skipped: "Skipped",
};

/** The badge tone of each run status (app.css). */
export const RUN_STATUS_TONES: Record<ModelRunStatus, "good" | "info" | "bad" | ""> = {
  queued: "info",
  running: "info",
  succeeded: "good",
  failed: "bad",
  skipped: "",
};

/** A run still in progress: the console refreshes the list until none is. */
export const isActive = (run: ModelRun) => run.status === "queued" || run.status === "running";

/** A share as a percentage with one decimal ("41.2%"), or an em dash when unknown. */
export function formatRate(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "—" : `${(x * 100).toFixed(1)}%`;
}

/** How the model compares with the baseline: "3.2× popularity", or "" when either is unknown or zero. */
export function formatLift(model: number | null | undefined, baseline: number | null | undefined): string {
  if (model === null || model === undefined || baseline === null || baseline === undefined) return "";
  if (!(baseline > 0) || !(model > 0)) return "";
  return `${(model / baseline).toFixed(1)}× popularity`;
}

/** "850 ms", "12.4 s", "3 min 5 s"; empty for a missing time. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * How long the run took: its measured total when it has one, else from start to finish (or to `now`
 * while running); empty before it started.
 */
export function runDuration(run: ModelRun, now: number = Date.now()): string {
  const total = run.metrics?.timings_ms?.total;
  if (total !== undefined) return formatMs(total);
  if (!run.started_at) return "";
  const start = Date.parse(run.started_at);
  const end = run.finished_at ? Date.parse(run.finished_at) : now;
  return formatMs(Math.max(0, end - start));
}

/** A row of the console's table: a run, or several consecutive skipped runs shown as one. */
export interface RunRow {
  readonly run: ModelRun;
  /** Runs this row stands for (1, or the consecutive skipped runs with the same reason). */
  readonly count: number;
  /** The oldest of them (when count > 1). */
  readonly oldest: ModelRun;
}

/**
 * Consecutive skipped runs with the same trigger and reason collapse into one row (a quiet study
 * skips every interval); the newest of them represents the group.
 */
export function collapseSkipped(runs: readonly ModelRun[]): RunRow[] {
  const rows: RunRow[] = [];
  for (const run of runs) {
    const last = rows[rows.length - 1];
    if (
      last &&
      run.status === "skipped" &&
      last.run.status === "skipped" &&
      last.run.trigger === run.trigger &&
      last.run.skipped_reason === run.skipped_reason
    ) {
      rows[rows.length - 1] = { run: last.run, count: last.count + 1, oldest: run };
    } else {
      rows.push({ run, count: 1, oldest: run });
    }
  }
  return rows;
}

/** The trainer's steps in the order they run, with their labels in the console. */
const STEPS: readonly (readonly [string, string])[] = [
  ["freshness", "Freshness check"],
  ["extract", "Extract interactions"],
  ["metadata", "Metadata similarity"],
  ["split", "Leave-last-out split"],
  ["train_evaluation_model", "Train the held-out model"],
  ["evaluate", "Evaluate against popularity"],
  ["train", "Train the served model"],
  ["recommend", "Top videos per participant"],
  ["similarity", "Item-to-item similarity"],
  ["write", "Write and swap"],
];

/**
 * Step timings in the order the steps run (the stored JSON does not keep an order), steps this
 * console does not know at the end, without the total.
 */
export function stepTimings(run: ModelRun): { step: string; time: string }[] {
  const timings = { ...(run.metrics?.timings_ms ?? {}) };
  const out: { step: string; time: string }[] = [];
  for (const [key, label] of STEPS) {
    const ms = timings[key];
    if (ms === undefined) continue;
    out.push({ step: label, time: formatMs(ms) });
    delete timings[key];
  }
  for (const [key, ms] of Object.entries(timings)) {
    if (key !== "total") out.push({ step: key.replaceAll("_", " "), time: formatMs(ms) });
  }
  return out;
}
