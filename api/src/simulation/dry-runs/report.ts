import { eventTypesByUser, feedCountsByUser, storedEventIds } from "@feedlab/projector";
import {
  type DryRunArm,
  type DryRunProblem,
  EVENT_TYPES,
  type EventType,
  expectedEventTypes,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { clusteredRatio } from "../../results/ratio.ts";
import { type JourneyRecord, problem, surveyOrderProblems } from "../drive/journey.ts";
import { percentile } from "../load/load-stats.ts";
import { lapsedUntested } from "./schedule-report.ts";

/** An arm as the run met it. */
export interface ArmUnderTest {
  readonly groupId: string;
  readonly name: string;
  readonly journeys: readonly JourneyRecord[];
}

/** What the store holds of a run's participants: event types and feed counts per participant. */
interface Stored {
  /** Event ids found, of those acknowledged. */
  readonly found: ReadonlySet<string>;
  readonly typesByUser: ReadonlyMap<string, ReadonlySet<string>>;
  readonly feedCounts: ReadonlyMap<string, { impressions: number; clicks: number }>;
}

/** Reads what the events store and the evaluation read model hold of these participants. */
export async function readStored(
  db: Knex,
  userIds: readonly string[],
  acknowledged: readonly string[],
): Promise<Stored> {
  return {
    found: await storedEventIds(db, acknowledged),
    typesByUser: await eventTypesByUser(db, userIds),
    feedCounts: await feedCountsByUser(db, userIds),
  };
}

const names = (types: readonly string[]) => types.join(", ");

/** How the study's completion is reached, as a dry run meets it. */
export interface CompletionDesign {
  /** The rule has conditions a participant reaches (sessions, minutes). */
  readonly expected: boolean;
  /** The rule needs minutes on the pages, which a dry run compresses: not reaching it is no problem. */
  readonly isWarning: boolean;
  /**
   * Why no simulated participant can reach the completion by design (minutes the run does not wait
   * for, a study that ends when the researcher completes it), or null when they can.
   */
  readonly unreachable: string | null;
}

/**
 * Why this arm's completion went untested (api.md "Simulated participants", `completion_not_tested`):
 * null when a participant reached it, or when not reaching it is the arm's problem (the line is red).
 */
function completionNotTested(
  arm: ArmUnderTest,
  problems: readonly DryRunProblem[],
  design: CompletionDesign,
): string | null {
  const took = arm.journeys.filter((j) => !j.declined);
  if (took.some((j) => j.finished)) return null;
  if (problems.some((p) => p.kind === "completion_not_reached" || p.kind === "redirect_placeholder"))
    return null;
  if (arm.journeys.length > 0 && took.length === 0)
    return "Every simulated participant of this arm declined the consent, so none reached the completion.";
  if (design.unreachable) return design.unreachable;
  const lapsed = took.flatMap((j) => (j.lapsedAt === null ? [] : [j.lapsedAt]));
  if (lapsed.length > 0) return lapsedUntested(Math.min(...lapsed));
  if (took.some((j) => j.outOfTime))
    return "The simulated participants ran out of the run's time budget before they reached the completion.";
  return "No simulated participant of this arm reached the completion.";
}

/**
 * One arm's part of the report (api.md "Simulated participants"): who finished, the event types that
 * arrived, those the contract's catalog says the journeys' actions should have produced that never
 * arrived, the surveys met, the completion, the click rate with its interval, and every problem.
 * A completion no participant reached without it being a problem is said to be not tested, with why,
 * rather than passing as green.
 */
export function armReport(arm: ArmUnderTest, stored: Stored, completion: CompletionDesign): DryRunArm {
  for (const j of arm.journeys)
    for (const message of surveyOrderProblems(j.surveys))
      problem(j, "survey", "survey_out_of_order", message);
  const problems: DryRunProblem[] = arm.journeys.flatMap((j) => j.problems);
  const took = arm.journeys.filter((j) => !j.declined);

  const arrived = new Set<string>();
  for (const j of arm.journeys)
    for (const t of stored.typesByUser.get(j.participant.userId) ?? []) arrived.add(t);
  const expected = expectedEventTypes(took.flatMap((j) => [...j.actions]));
  const missing = expected.filter((t) => !arrived.has(t));
  if (missing.length > 0) {
    const who = took[0]?.participant;
    problems.push({
      participant: who?.loginId ?? "",
      user_id: who?.userId ?? null,
      page: "events",
      kind: "missing_event_types",
      message: `The pages never sent ${names(missing)}, though the participants did what sends ${missing.length === 1 ? "it" : "them"}.`,
    });
  }

  for (const j of arm.journeys) {
    const lost = j.acknowledged.filter((id) => !stored.found.has(id)).length;
    if (lost > 0)
      problems.push({
        participant: j.participant.loginId,
        user_id: j.participant.userId,
        page: "events",
        kind: "events_not_stored",
        message: `${lost} of ${j.acknowledged.length} events the server acknowledged never reached the events store.`,
      });
    if (
      completion.expected &&
      !completion.isWarning &&
      !j.declined &&
      !j.finished &&
      !j.outOfTime &&
      j.lapsedAt === null &&
      j.problems.length === 0
    )
      problems.push({
        participant: j.participant.loginId,
        user_id: j.participant.userId,
        page: "completion",
        kind: "completion_not_reached",
        message: "The participant did everything the study asked and still did not reach its completion.",
      });
  }

  const ctr = clusteredRatio(
    took.map((j) => {
      const c = stored.feedCounts.get(j.participant.userId);
      return { y: c?.clicks ?? 0, x: c?.impressions ?? 0 };
    }),
  );
  const firstCards = took.flatMap((j) => j.firstCardMs);
  const surveys = took.find((j) => j.surveys.length > 0)?.surveys ?? [];
  return {
    group_id: arm.groupId,
    name: arm.name,
    participants: arm.journeys.length,
    finished: arm.journeys.filter((j) => j.finished).length,
    declined: arm.journeys.filter((j) => j.declined).length,
    ctr,
    served_by_model: null,
    first_card_ms:
      firstCards.length === 0
        ? null
        : {
            p50: Math.round(percentile(Float64Array.from(firstCards).sort(), 50) ?? 0),
            max: Math.round(Math.max(...firstCards)),
          },
    surveys: surveys.map((s) => ({ name: s.name, kind: s.kind })),
    completion_redirect: took.find((j) => j.redirect !== null)?.redirect ?? null,
    completion_not_tested: completionNotTested(arm, problems, completion),
    event_types: EVENT_TYPES.filter((t) => arrived.has(t)) as EventType[],
    missing_event_types: missing,
    problems,
  };
}
