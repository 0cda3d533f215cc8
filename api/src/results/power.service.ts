import { evaluationCounts } from "@feedlab/projector";
import type { PowerMetric, PowerQuery, PowerResult } from "@feedlab/schemas";
import type { ServiceDeps } from "../deps.ts";
import { unprocessable, validationFailed } from "../http/errors.ts";
import { armsOf, type ParticipantCounts as Counts, countsByParticipant, leftOutUsers } from "./arms.ts";
import {
  closedFormPerArm,
  closedFormPower,
  type Design,
  designEffect,
  powerCurve,
  unequalDesignEffect,
} from "./power.closed-form.ts";
import { estimatePilot, type Pilot, RESAMPLING_MAX_PER_ARM } from "./power.resampling.ts";
import { createResamplingRunner, type ResamplingRunner } from "./power.runner.ts";

/** Resampled studies per simulated size (api.md: 1,000, seeded). */
export const RESAMPLES = 1000;

/** Mean denominator units per participant when the researcher assumes rates but gives none. */
const DEFAULT_PER_PARTICIPANT: Record<PowerMetric, number> = {
  ctr: 50,
  completion_rate: 10,
  like_rate: 10,
};

/** Each metric's numerator and denominator in the evaluation read model (as /stats counts them). */
const PARTS = {
  ctr: ["feed_clicks", "impressions"],
  completion_rate: ["completions", "plays"],
  like_rate: ["likes", "plays"],
} as const;

/**
 * Power analysis for a difference of two arms' rates (api.md `GET .../power`). With `baseline` and
 * `icc`, the closed form with the design effect ("assumed"); otherwise the experiment's own real,
 * analysed participants are the pilot ("resampling"). docs/power.md.
 */
export function createPowerService({
  db,
  runner = createResamplingRunner(),
}: Pick<ServiceDeps, "db"> & { runner?: ResamplingRunner }) {
  /** Per arm, each participant's summed counts (the left-out ones as /stats leaves them out). */
  async function participants(experimentId: string): Promise<Map<string, Map<string, Counts>>> {
    const [rows, leftOut] = await Promise.all([
      evaluationCounts(db, experimentId),
      leftOutUsers(db, experimentId),
    ]);
    const kept = rows.filter((r) => !leftOut.has(r.user_id));
    const arms = new Map<string, Map<string, Counts>>();
    for (const [group, list] of Map.groupBy(kept, (r) => r.group_id))
      arms.set(group, countsByParticipant(list));
    return arms;
  }

  return {
    /** Ends the resampling thread (a later request starts it again). */
    stop: () => runner.stop(),
    async forExperiment(experimentId: string, query: PowerQuery): Promise<PowerResult> {
      const groups = await armsOf(db, experimentId);
      const nowPerArm = groups.length === 0 ? 0 : Math.min(...groups.map((g) => g.participants));
      const alpha = query.alpha ?? 0.05;
      const target = query.power ?? 0.8;
      const { metric, effect } = query;
      const assumed = query.baseline !== undefined || query.icc !== undefined;
      if (assumed && (query.baseline === undefined || query.icc === undefined)) {
        const missing = query.baseline === undefined ? "baseline" : "icc";
        throw validationFailed([
          { field: missing, message: "is required with baseline and icc (assumed rates)" },
        ]);
      }

      if (query.baseline !== undefined && query.icc !== undefined) {
        const perParticipant = query.impressions_per_participant ?? DEFAULT_PER_PARTICIPANT[metric];
        const design = checkedDesign({
          baseline: query.baseline,
          effect,
          alpha,
          perParticipant,
          designEffect: designEffect(perParticipant, query.icc),
        });
        const needed = closedFormPerArm(design, target);
        return present({
          metric,
          method: "assumed",
          design,
          icc: query.icc,
          target,
          needed,
          now: nowPerArm,
          powerNow: nowPerArm > 0 ? closedFormPower(design, nowPerArm) : null,
          simulated: [],
        });
      }

      // Resampling: one pilot of every arm's participants with data, pooled (the pilot is the null).
      const [y, x] = PARTS[metric];
      const arms = await participants(experimentId);
      const withData = groups.map((g) =>
        [...(arms.get(g.id)?.values() ?? [])].filter((c) => c[x] > 0 || c[y] > 0),
      );
      if (withData.length === 0 || Math.min(...withData.map((a) => a.length)) < 2) {
        throw unprocessable(
          "not_enough_data",
          `Too few participants with ${x} to resample (at least 2 per arm): give baseline and icc to use assumed rates instead.`,
          { field: "baseline" },
        );
      }
      // In an order of the data alone (the read model's row order is not), so a seed gives one answer.
      const all = withData.flat().sort((a, b) => a[x] - b[x] || a[y] - b[y]);
      const pilot: Pilot = {
        xs: Float64Array.from(all, (c) => c[x]),
        ys: Float64Array.from(all, (c) => c[y]),
      };
      const est = estimatePilot(pilot);
      const design = checkedDesign({
        baseline: est.rate,
        effect,
        alpha,
        perParticipant: est.perParticipant,
        designEffect: unequalDesignEffect(est.perParticipant, est.cv, est.icc),
      });
      const resampled = await runner.run({
        pilot,
        rate: est.rate,
        sim: { effect, alpha, resamples: RESAMPLES, seed: query.seed ?? 1 },
        target,
        guess: closedFormPerArm(design, target),
        // Past the resampling bound the closed form gives the power now (below).
        now: nowPerArm > 0 && nowPerArm <= RESAMPLING_MAX_PER_ARM ? nowPerArm : null,
      });
      const powerNow = resampled.powerNow ?? (nowPerArm > 0 ? closedFormPower(design, nowPerArm) : null);
      return present({
        metric,
        method: "resampling",
        design,
        icc: est.icc,
        target,
        needed: resampled.needed,
        now: nowPerArm,
        powerNow,
        simulated: resampled.simulated,
      });
    },
  };
}

/** The answer on the wire, with the closed form's curve up to twice the answer (or the study now). */
function present(a: {
  metric: PowerMetric;
  method: PowerResult["method"];
  design: Design;
  icc: number;
  target: number;
  needed: number | null;
  now: number;
  powerNow: number | null;
  simulated: PowerResult["simulated"];
}): PowerResult {
  const d = a.design;
  const upTo = Math.max(20, 2 * (a.needed ?? closedFormPerArm(d, a.target)), Math.ceil(a.now * 1.2));
  return {
    metric: a.metric,
    method: a.method,
    baseline: d.baseline,
    effect: d.effect,
    icc: a.icc,
    alpha: d.alpha,
    power: a.target,
    impressions_per_participant: d.perParticipant,
    design_effect: d.designEffect,
    per_arm_needed: a.needed,
    participants_per_arm_now: a.now,
    power_now: a.powerNow,
    curve: powerCurve(d, upTo),
    simulated: a.simulated,
  };
}

/** A design whose treatment rate is a rate: baseline + effect above 1 is the researcher's mistake. */
function checkedDesign(d: Design): Design {
  if (d.baseline + d.effect > 1) {
    throw validationFailed([
      {
        field: "effect",
        message: `takes the rate above 1 (baseline ${d.baseline.toFixed(4)} + effect ${d.effect})`,
      },
    ]);
  }
  return d;
}

export type PowerService = ReturnType<typeof createPowerService>;
