import { randomInt } from "node:crypto";
import { armTotals } from "@feedlab/projector";
import {
  type Assignment,
  assignmentInForce,
  defaultBlockSize,
  type ParticipantAssignment,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { json } from "../../db/present.ts";
import { saveAssignmentState } from "../../experiments/queries/experiments.queries.ts";
import { armsOf } from "../../groups/queries/groups.queries.ts";
import { conflict, forbidden } from "../../http/errors.ts";
import { createRandom, type Random } from "../../simulation/random.ts";
import {
  type CountedFilter,
  countedByArm,
  finishedByArm,
  participantsNotOfKind,
  recruitingLevelsByArm,
} from "../queries/users.queries.ts";
import {
  type ArmLoad,
  type ArmOutcome,
  adaptive,
  balanced,
  blocked,
  type Decision,
  MISSING_LEVEL,
  minimisation,
} from "./methods.ts";

/** What a method carries from one newcomer to the next: the slots left in each kind's block. */
interface AssignmentState {
  readonly blocks?: { readonly real?: readonly string[]; readonly simulated?: readonly string[] };
}

export interface Newcomer {
  readonly loginId: string;
  readonly simulated: boolean;
  readonly recruiting: Readonly<Record<string, string>>;
}

/** An arm as assignment reads it, open or not. */
interface ArmRow {
  id: string;
  weight: number;
  cap: number | null;
  paused: boolean;
}

/** An arm's load: open unless paused or its count reached its cap. */
const loadOf = (a: ArmRow, counted: number): ArmLoad => ({
  id: a.id,
  weight: Number(a.weight),
  counted,
  open: a.paused !== true && (a.cap === null || counted < Number(a.cap)),
});

/**
 * The random source of one newcomer's assignment: with the experiment's `seed`, a pure function of it and
 * the participant (a run can be repeated); without, unpredictable.
 */
function assignmentRandom(a: Assignment, experimentId: string, loginId: string): Random {
  return a.seed === undefined
    ? createRandom(randomInt(2 ** 32))
    : createRandom(a.seed).fork(`${experimentId}:${loginId}`);
}

/** A blocked method's block size: the one set, or twice the weights' sum (docs/assignment.md). */
export const blockSizeOf = (a: Assignment, arms: readonly ArmLoad[]): number =>
  a.block_size ?? defaultBlockSize(arms.map((x) => x.weight)) ?? arms.length;

/**
 * The arms' loads as the balance counts them now, for one kind of participant (real or simulated: each
 * balances among its own, and simulated participants never count towards a real cap).
 */
export async function armLoads(
  trx: Knex | Knex.Transaction,
  experimentId: string,
  a: Assignment,
  simulated: boolean,
  now: Date,
): Promise<{ arms: ArmLoad[]; filter: CountedFilter }> {
  const rows = await armsOf<ArmRow>(trx, experimentId, "id", "weight", "cap", "paused");
  const filter: CountedFilter = {
    counts: a.counts ?? "joined",
    ...(a.stale_minutes === undefined ? {} : { staleMinutes: a.stale_minutes }),
    simulated,
    now,
  };
  const counts = await countedByArm(
    trx,
    rows.map((r) => r.id),
    filter,
  );
  return { arms: rows.map((r) => loadOf(r, counts.get(r.id) ?? 0)), filter };
}

/**
 * Each arm's outcome on the adaptive metric, over its real participants (api.md), or, for a dry run's
 * newcomer, over the simulated ones: each kind learns from its own, as it is balanced among its own.
 */
export async function armOutcomes(
  trx: Knex | Knex.Transaction,
  experimentId: string,
  metric: NonNullable<Assignment["metric"]>,
  armIds: readonly string[],
  simulated = false,
): Promise<Map<string, ArmOutcome>> {
  if (metric === "completion_rate") {
    const rows = await finishedByArm(trx, armIds, simulated);
    return new Map(
      armIds.map((id) => {
        const r = rows.get(id) ?? { joined: 0, finished: 0 };
        return [id, { id, successes: r.finished, trials: r.joined }];
      }),
    );
  }
  const leftOut = new Set(await participantsNotOfKind(trx, experimentId, simulated));
  const totals = await armTotals(trx, experimentId, leftOut);
  return new Map(
    armIds.map((id) => {
      const t = totals.get(id) ?? { impressions: 0, feed_clicks: 0, plays: 0, likes: 0 };
      return [
        id,
        metric === "ctr"
          ? { id, successes: t.feed_clicks, trials: t.impressions }
          : { id, successes: t.likes, trials: t.plays },
      ];
    }),
  );
}

/**
 * Chooses a newcomer's arm by the experiment's method (api.md "Assignment (wave 4)"). The caller holds
 * the experiment's row lock, so simultaneous joins see each other (a cap is never overfilled, a block
 * never broken). 403 `experiment_full` when every arm is full or paused.
 */
export async function chooseArm(
  trx: Knex.Transaction,
  experiment: { id: string; assignment: unknown; assignment_state: unknown },
  newcomer: Newcomer,
  now: Date,
): Promise<{ groupId: string; assignment: ParticipantAssignment }> {
  const a = assignmentInForce(json<Assignment | null>(experiment.assignment, null));
  const { arms, filter } = await armLoads(trx, experiment.id, a, newcomer.simulated, now);
  if (arms.length === 0)
    throw conflict("experiment_has_no_groups", "The experiment has no arms to assign participants to.");
  const random = assignmentRandom(a, experiment.id, newcomer.loginId);
  let decision: Decision | null = null;
  let covariates: Record<string, string | null> | undefined;
  if (a.method === "blocked") {
    const state = json<AssignmentState | null>(experiment.assignment_state, null) ?? {};
    const kind = newcomer.simulated ? "simulated" : "real";
    const out = blocked(arms, state.blocks?.[kind] ?? null, blockSizeOf(a, arms), random);
    if (out) {
      decision = out.decision;
      await saveAssignmentState(trx, experiment.id, {
        ...state,
        blocks: { ...state.blocks, [kind]: out.remaining },
      });
    }
  } else if (a.method === "minimisation") {
    const recruitingKeys = (a.covariates ?? []).filter((c) => c.source === "recruiting").map((c) => c.key);
    const levels = await Promise.all(
      recruitingKeys.map((key) =>
        recruitingLevelsByArm(
          trx,
          arms.map((x) => x.id),
          key,
          filter,
        ),
      ),
    );
    const own = recruitingKeys.map((key) => newcomer.recruiting[key] ?? MISSING_LEVEL);
    decision = minimisation(arms, levels, own, a.random_element ?? 0.8, random);
    covariates = Object.fromEntries(recruitingKeys.map((key, i) => [key, own[i] || null]));
  } else if (a.method === "adaptive") {
    const outcomes = await armOutcomes(
      trx,
      experiment.id,
      a.metric ?? "ctr",
      arms.map((x) => x.id),
      newcomer.simulated,
    );
    decision = adaptive(
      arms,
      outcomes,
      { burnIn: a.burn_in ?? 20, floor: a.floor ?? 0.05 },
      random.fork("draws"),
      random.fork("choice"),
    );
  } else {
    decision = balanced(arms);
  }
  if (!decision)
    throw forbidden(
      "experiment_full",
      "This study has all the participants it needs. Thank you for your interest.",
    );
  return {
    groupId: decision.armId,
    assignment: {
      method: a.method,
      // Twelve decimals: enough for any weight, without 1 - 0.8's 0.19999999999999996 in exports.
      probability: Math.round(decision.probability * 1e12) / 1e12,
      ...(covariates ? { covariates } : {}),
      at: now.toISOString(),
    },
  };
}
