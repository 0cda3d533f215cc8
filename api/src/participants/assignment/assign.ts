import { randomInt } from "node:crypto";
import { armTotals } from "@feedlab/projector";
import {
  type Assignment,
  assignmentInForce,
  defaultBlockSize,
  type ParticipantAssignment,
  waitsForPreSurvey,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { json } from "../../db/present.ts";
import { lockExperiment, saveAssignmentState } from "../../experiments/queries/experiments.queries.ts";
import { armsOf } from "../../groups/queries/groups.queries.ts";
import { conflict, forbidden } from "../../http/errors.ts";
import { createRandom, type Random } from "../../system/random.ts";
import {
  type CountedFilter,
  countedByArm,
  covariateLevelsByArm,
  finishedByArm,
  participantsNotOfKind,
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
  /** The pre survey's answers, by question id: the chosen option's value (a survey covariate's level). */
  readonly answers?: Readonly<Record<string, string>>;
}

/** What a participant's assignment records of a covariate's level: a survey answer as `survey:<question id>`. */
const covariateName = (c: { source: string; key: string }) =>
  c.source === "survey" ? `survey:${c.key}` : c.key;

const experimentFull = () =>
  forbidden("experiment_full", "This study has all the participants it needs. Thank you for your interest.");

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
 * never broken). 403 `experiment_full` when every arm is full or paused. Null when the method balances
 * on a pre survey's answer and the newcomer has not given theirs yet (`answers` absent): they join
 * without an arm, if one is open, and are assigned when they answer (`assignOnPreSurvey`).
 */
export async function chooseArm(
  trx: Knex.Transaction,
  experiment: { id: string; assignment: unknown; assignment_state: unknown },
  newcomer: Newcomer,
  now: Date,
): Promise<{ groupId: string; assignment: ParticipantAssignment } | null> {
  const a = assignmentInForce(json<Assignment | null>(experiment.assignment, null));
  const { arms, filter } = await armLoads(trx, experiment.id, a, newcomer.simulated, now);
  if (arms.length === 0)
    throw conflict("experiment_has_no_groups", "The experiment has no arms to assign participants to.");
  if (waitsForPreSurvey(a) && newcomer.answers === undefined) {
    if (!arms.some((x) => x.open && x.weight > 0)) throw experimentFull();
    return null;
  }
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
    const given = a.covariates ?? [];
    const levels = await Promise.all(
      given.map((c) =>
        covariateLevelsByArm(
          trx,
          arms.map((x) => x.id),
          c,
          filter,
        ),
      ),
    );
    const own = given.map(
      (c) =>
        (c.source === "survey" ? newcomer.answers?.[c.key] : newcomer.recruiting[c.key]) ?? MISSING_LEVEL,
    );
    decision = minimisation(arms, levels, own, a.random_element ?? 0.8, random);
    covariates = Object.fromEntries(given.map((c, i) => [covariateName(c), own[i] || null]));
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
  if (!decision) throw experimentFull();
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

/** The levels a pre survey's answers give its questions: the first chosen option's value, by question id. */
export const answerLevels = (
  answers: readonly { readonly questionId: string; readonly selections: readonly { value: unknown }[] }[],
): Record<string, string> =>
  Object.fromEntries(
    answers.flatMap((x) =>
      x.selections[0] === undefined ? [] : [[x.questionId, String(x.selections[0].value)]],
    ),
  );

/**
 * Assigns a participant who joined without an arm (a study that balances on the pre survey's answers:
 * api.md "Assignment (wave 4)") once they have answered it, or once the study has no active pre survey
 * any more (their answers then are missing levels), under the experiment's lock as a join is. Nothing
 * when they have an arm already. 403 `experiment_full` when every arm filled up meanwhile: the caller's
 * transaction then stores nothing (their response included), and they may answer again later.
 */
export async function assignWaiting(
  trx: Knex.Transaction,
  userId: string,
  answers: Readonly<Record<string, string>>,
  now: Date,
): Promise<void> {
  const user = (await trx("users").where({ id: userId }).first("experiment_id", "group_id")) as
    | { experiment_id: string; group_id: string | null }
    | undefined;
  if (!user || user.group_id !== null) return;
  const experiment = await lockExperiment<{ id: string; assignment: unknown; assignment_state: unknown }>(
    trx,
    user.experiment_id,
    "id",
    "assignment",
    "assignment_state",
  );
  // Read again under the lock: a simultaneous request of the same participant may have assigned them.
  const waiting = (await trx("users")
    .where({ id: userId })
    .forUpdate()
    .first("login_id", "simulated", "recruiting", "group_id")) as
    | { login_id: string; simulated: boolean; recruiting: unknown; group_id: string | null }
    | undefined;
  if (!experiment || !waiting || waiting.group_id !== null) return;
  const chosen = await chooseArm(
    trx,
    experiment,
    {
      loginId: waiting.login_id,
      simulated: waiting.simulated === true,
      recruiting: json<Record<string, string> | null>(waiting.recruiting, null) ?? {},
      answers,
    },
    now,
  );
  if (!chosen) return;
  await trx("users")
    .where({ id: userId })
    .update({ group_id: chosen.groupId, assignment: JSON.stringify(chosen.assignment) });
}
