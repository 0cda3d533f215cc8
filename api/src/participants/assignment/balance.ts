import { type Assignment, assignmentInForce, type Balance } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../../db/present.ts";
import { experimentRow } from "../../experiments/queries/experiments.queries.ts";
import { armsOf } from "../../groups/queries/groups.queries.ts";
import { notFound } from "../../http/errors.ts";
import { createRandom } from "../../system/random.ts";
import { covariateLevelsByArm } from "../queries/users.queries.ts";
import { armLoads, armOutcomes, blockSizeOf } from "./assign.ts";
import { categoricalSmd, numericSmd } from "./balance-stats.ts";
import { type ArmLoad, balanced, MISSING_LEVEL, slotsNow, thompsonProbabilities } from "./methods.ts";

/** The chance the next real newcomer goes to each arm (null for minimisation: it depends on them). */
async function probabilitiesNow(
  db: Db,
  experimentId: string,
  a: Assignment,
  arms: readonly ArmLoad[],
  state: unknown,
): Promise<Map<string, number> | null> {
  const open = arms.filter((x) => x.open && x.weight > 0);
  const out = new Map(arms.map((x) => [x.id, 0]));
  if (open.length === 0) return out;
  if (a.method === "minimisation") return null;
  if (a.method === "balanced") {
    const next = balanced(arms);
    if (next) out.set(next.armId, 1);
    return out;
  }
  if (a.method === "blocked") {
    const kept = json<{ blocks?: { real?: string[] } } | null>(state, null)?.blocks?.real ?? null;
    const slots = slotsNow(arms, kept, blockSizeOf(a, arms));
    for (const id of slots) out.set(id, (out.get(id) ?? 0) + 1 / slots.length);
    return out;
  }
  if (open.some((x) => x.counted < (a.burn_in ?? 20))) {
    for (const x of open) out.set(x.id, 1 / open.length);
    return out;
  }
  const outcomes = await armOutcomes(
    db,
    experimentId,
    a.metric ?? "ctr",
    open.map((x) => x.id),
  );
  const p = thompsonProbabilities(
    open.map((x) => outcomes.get(x.id) ?? { id: x.id, successes: 0, trials: 0 }),
    a.floor ?? 0.05,
    createRandom(a.seed ?? 0).fork("balance"),
  );
  open.forEach((x, i) => {
    out.set(x.id, p[i] ?? 0);
  });
  return out;
}

/**
 * `GET .../balance` (api.md "Assignment (wave 4)"): each arm's counted real participants, cap, pause and
 * the chance the next newcomer goes there; each covariate's distribution per arm (shares of its levels,
 * and the mean when every value is a number) with the largest standardised mean difference.
 */
export async function experimentBalance(db: Db, experimentId: string, now: Date): Promise<Balance> {
  const experiment = await experimentRow<{ assignment: unknown; assignment_state: unknown }>(
    db,
    experimentId,
    "assignment",
    "assignment_state",
  );
  if (!experiment) throw notFound("experiment");
  const a = assignmentInForce(json<Assignment | null>(experiment.assignment, null));
  const [{ arms, filter }, rows] = await Promise.all([
    armLoads(db, experimentId, a, false, now),
    armsOf<{ id: string; name: string; cap: number | null; paused: boolean }>(
      db,
      experimentId,
      "id",
      "name",
      "cap",
      "paused",
    ),
  ]);
  const chances = await probabilitiesNow(db, experimentId, a, arms, experiment.assignment_state);
  const ids = rows.map((r) => r.id);
  const covariates = await Promise.all(
    (a.covariates ?? []).map(async (c) => {
      const levels = await covariateLevelsByArm(db, ids, c, filter);
      const perArm = ids.map((id) => levels.get(id) ?? new Map<string, number>());
      const given = new Set(perArm.flatMap((l) => [...l.keys()]).filter((k) => k !== MISSING_LEVEL));
      const numeric = given.size > 0 && [...given].every((k) => Number.isFinite(Number(k)));
      const valuesOf = (l: ReadonlyMap<string, number>) =>
        [...l.entries()]
          .filter(([k]) => k !== MISSING_LEVEL)
          .flatMap(([k, n]) => Array.from({ length: n }, () => Number(k)));
      return {
        source: c.source,
        key: c.key,
        arms: ids.map((id, i) => {
          const l = perArm[i] as Map<string, number>;
          const n = [...l.values()].reduce((s, x) => s + x, 0);
          const values = valuesOf(l);
          return {
            group_id: id,
            n,
            ...(numeric && values.length > 0
              ? { mean: values.reduce((s, x) => s + x, 0) / values.length }
              : {}),
            shares: Object.fromEntries(
              [...l.entries()].map(([k, x]) => [k === MISSING_LEVEL ? "(none)" : k, n === 0 ? 0 : x / n]),
            ),
          };
        }),
        smd_max: numeric ? numericSmd(perArm.map(valuesOf)) : categoricalSmd(perArm),
      };
    }),
  );
  return {
    method: a.method,
    counts: a.counts,
    arms: rows.map((r, i) => ({
      group_id: r.id,
      name: r.name,
      counted: arms[i]?.counted ?? 0,
      cap: r.cap === null ? null : Number(r.cap),
      paused: r.paused === true,
      probability_now: chances === null ? null : (chances.get(r.id) ?? 0),
    })),
    covariates,
  };
}
