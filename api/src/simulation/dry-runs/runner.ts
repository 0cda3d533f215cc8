import { decodePosition, type LogPosition } from "@feedlab/ingest";
import type { Completion, Question, Schedule, Video } from "@feedlab/schemas";
import { rankedUsers } from "@feedlab/trainer";
import type { Knex } from "knex";
import { Agent } from "undici";
import { json } from "../../db/present.ts";
import { experimentRow } from "../../experiments/queries/experiments.queries.ts";
import { armsOf } from "../../groups/queries/groups.queries.ts";
import { surveysOf } from "../../surveys/queries/answers.queries.ts";
import { poolVideos } from "../../videos/queries/videos.queries.ts";
import { createParticipantModel } from "../behaviour.ts";
import { createBrowserJourney } from "../drive/browser-journey.ts";
import { launchChromium } from "../drive/chromium.ts";
import { createHttpJourney } from "../drive/http-journey.ts";
import type { Journey, JourneyInput, JourneyRecord, SimulatedParticipant } from "../drive/journey.ts";
import { ParticipantClient } from "../drive/participant-client.ts";
import { plannedSessions } from "../drive/schedule.ts";
import { type ArmUnderTest, armReport, readStored } from "./report.ts";
import {
  beyondBudgetUntested,
  beyondBudgetWarning,
  count,
  scheduleBeyondBudget,
  scheduleWarnings,
  shortWindowsWarning,
} from "./schedule-report.ts";
import { runScheduled } from "./scheduled-visits.ts";

/** What a run is asked to do. */
export interface RunPlan {
  readonly runId: string;
  readonly experimentId: string;
  readonly perArm: number;
  readonly browser: boolean;
  readonly seed: number;
  /** This server's own address, which the simulated participants use. */
  readonly baseUrl: string;
  /** Epoch ms by which journeys stop (the wall-clock budget). */
  readonly deadline: number;
  /** The Chromium to drive (browser runs). */
  readonly chromium: string | null;
}

/** What the runner needs of the rest of the api. */
export interface RunnerDeps {
  readonly db: Knex;
  /** Creates a simulated participant in an arm. */
  createParticipant(experimentId: string, loginId: string, groupId: string): Promise<SimulatedParticipant>;
  /** A participant session token (the participant cookie's value). */
  issueToken(userId: string): Promise<string>;
  /** Participants driven at once over HTTP. */
  readonly httpConcurrency?: number;
  /** Participants driven at once in the browser (each a browser context). */
  readonly browserConcurrency?: number;
  /**
   * Trains the learned model of the experiment's simulated participants on their events so far (and
   * for them only); called between sessions when an arm serves learned_model.
   */
  trainSimulated?(experimentId: string): Promise<void>;
  /** Waits until the projections have passed a log position (false: the wait was over first). */
  waitForLog(position: LogPosition, timeoutMs: number): Promise<boolean>;
  /** How long to wait for acknowledged events to reach the events store. */
  readonly storeWaitMs?: number;
}

export interface RunOutcome {
  readonly arms: ReturnType<typeof armReport>[];
  readonly warnings: string[];
}

/** Runs `work` over `items`, `limit` at a time, in order of starting. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The answers the experiment's attention checks expect, by question id (the pages never show them). */
async function attentionAnswersOf(
  db: Knex,
  experimentId: string,
): Promise<Map<string, number | readonly number[]>> {
  const rows = await surveysOf<{ questions: unknown }>(db, experimentId, {}, "questions");
  const out = new Map<string, number | readonly number[]>();
  for (const r of rows)
    for (const q of json<Question[]>(r.questions, []))
      if (q.attention_answer !== undefined && q.attention_answer !== null) out.set(q.id, q.attention_answer);
  return out;
}

/**
 * The newest log position the records' acknowledged batches were given, per partition: once the
 * projector has passed it, the events store holds every acknowledged event it is going to hold.
 */
export function newestPosition(records: readonly JourneyRecord[]): LogPosition {
  const newest = new Map<number, number>();
  for (const r of records)
    for (const token of r.positions)
      for (const [partition, offset] of decodePosition(token) ?? [])
        newest.set(partition, Math.max(offset, newest.get(partition) ?? -1));
  return newest;
}

/**
 * A dry run (issue 36): `perArm` simulated participants in each arm, each with the same seeds across
 * arms (one seed is one person: the arms are compared on common random numbers), driven through the
 * participant API by their behaviour model, then the report per arm from what they did and what the
 * store holds. `onProgress` is told of each participant done.
 */
export async function runDryRun(
  deps: RunnerDeps,
  plan: RunPlan,
  onProgress: (done: number, total: number) => Promise<void>,
): Promise<RunOutcome> {
  const { db } = deps;
  const budgetMs = plan.deadline - Date.now();
  const exp = (await experimentRow<{ completion: unknown; schedule: unknown }>(
    db,
    plan.experimentId,
    "completion",
    "schedule",
  )) as { completion: unknown; schedule: unknown };
  const completion = json<Completion | null>(exp.completion, null);
  const schedule = json<Schedule | null>(exp.schedule, null) ?? [];
  const groups = await armsOf<{ id: string; name: string; algorithm_feed: string; algorithm_watch: string }>(
    db,
    plan.experimentId,
    "id",
    "name",
    "algorithm_feed",
    "algorithm_watch",
  );
  const pool = await poolVideos<Pick<Video, "id" | "category" | "tags" | "duration_seconds">>(
    db,
    plan.experimentId,
    "id",
    "category",
    "tags",
    "duration_seconds",
  );
  const attentionAnswers = await attentionAnswersOf(db, plan.experimentId);
  const design = {
    completion,
    needsFeedMinutes: completion?.after_feed_minutes !== undefined && completion?.after_feed_minutes !== null,
    poolSize: pool.length,
    schedule,
  };

  // Participants, created up front so the run's total is known; journeys then run a few at a time.
  const short = plan.runId.slice(0, 8);
  const planned: { arm: number; input: JourneyInput; token: string }[] = [];
  for (const [a, g] of groups.entries()) {
    for (let i = 0; i < plan.perArm; i++) {
      const participant = await deps.createParticipant(
        plan.experimentId,
        `sim-${short}-${a + 1}-${i + 1}`,
        g.id,
      );
      const model = createParticipantModel({ seed: plan.seed + i, pool, attentionAnswers });
      planned.push({
        arm: a,
        input: { participant, model, design, deadline: plan.deadline },
        token: await deps.issueToken(participant.userId),
      });
    }
  }
  // Visits go a session at a time for everyone (with a schedule: once everyone made a visit), so a
  // learned arm's model can be trained on the simulated participants' events between them (and serve
  // only them).
  const learned = groups.some(
    (g) => g.algorithm_feed === "learned_model" || g.algorithm_watch === "learned_model",
  );
  const sessionsOf = planned.map((p) => plannedSessions(p.input.model, design));
  const total = sessionsOf.reduce((sum, n) => sum + n, 0);
  // A schedule that cannot fit in the budget is known before anyone starts (api.md "Longitudinal
  // studies (wave 4)"): the participants still make the sessions that fit.
  const beyond = scheduleBeyondBudget(schedule, Math.max(1, ...sessionsOf), budgetMs);
  let done = 0;
  await onProgress(done, total);
  /** Per learned arm: feed pages shown, and those the model (not its fallback) ranked. */
  const served = new Map<number, { pages: number; model: number }>();
  const learnedArms = new Set(groups.flatMap((g, a) => (g.algorithm_feed === "learned_model" ? [a] : [])));

  /** A learned arm's feed pages of one visit, and whether its model (not its fallback) served them. */
  const account = (j: Journey, pages: number, modelled: boolean) => {
    const arm = armOf.get(j) ?? -1;
    if (!learnedArms.has(arm)) return;
    const counts = served.get(arm) ?? { pages: 0, model: 0 };
    counts.pages += pages;
    if (modelled) counts.model += pages;
    served.set(arm, counts);
  };
  const visit = async (j: Journey, n: number, modelled: boolean) => {
    const pagesBefore = j.record.feedPages;
    await j.visit(n);
    account(j, j.record.feedPages - pagesBefore, modelled);
    done += 1;
    await onProgress(done, total);
  };
  const train = async (journeys: readonly Journey[]) => {
    if (!deps.trainSimulated) return;
    await deps.waitForLog(newestPosition(journeys.map((j) => j.record)), deps.storeWaitMs ?? 30_000);
    await deps.trainSimulated(plan.experimentId);
  };

  const runLockstep = async (journeys: Journey[], concurrency: number) => {
    await pooled(journeys, concurrency, (j) => j.begin());
    const most = Math.max(0, ...journeys.map((j) => j.sessions));
    for (let n = 1; n <= most; n++) {
      const due = journeys.filter((j) => j.going && n <= j.sessions);
      if (due.length === 0) break;
      const modelled = learned
        ? await rankedUsers(
            db,
            plan.experimentId,
            due.map((j) => j.record.participant.userId),
          )
        : new Set<string>();
      await pooled(due, concurrency, (j) => visit(j, n, modelled.has(j.record.participant.userId)));
      if (learned && n < most) await train(journeys);
    }
    await pooled(journeys, concurrency, (j) => j.end());
  };

  // With a schedule, each participant goes at their own pace from window to window.
  const runAtOwnPace = (journeys: Journey[], concurrency: number) =>
    runScheduled(journeys, concurrency, {
      visit: async (j, n) => {
        const userId = j.record.participant.userId;
        const modelled =
          learnedArms.has(armOf.get(j) ?? -1) &&
          (await rankedUsers(db, plan.experimentId, [userId])).has(userId);
        await visit(j, n, modelled);
      },
      ...(learned ? { between: () => train(journeys) } : {}),
    });

  const runPhases = async (journeys: Journey[], concurrency: number) => {
    await (schedule.length > 0 ? runAtOwnPace : runLockstep)(journeys, concurrency);
    done = total;
    await onProgress(done, total);
    return journeys.map((j) => j.record);
  };

  const armOf = new Map<Journey, number>();
  let records: JourneyRecord[];
  if (plan.browser) {
    const browser = await launchChromium(plan.chromium);
    const index = new Map(pool.map((v) => [v.id, v]));
    try {
      const journeys = planned.map((p) => {
        const j = createBrowserJourney(browser, plan.baseUrl, p.token, index, p.input);
        armOf.set(j, p.arm);
        return j;
      });
      records = await runPhases(journeys, deps.browserConcurrency ?? 3);
    } finally {
      await browser.close();
    }
  } else {
    const agent = new Agent({ connections: 16, keepAliveTimeout: 10_000 });
    try {
      const journeys = planned.map((p) => {
        const client = new ParticipantClient(plan.baseUrl, `feedlab_participant=${p.token}`, agent);
        const j = createHttpJourney(client, p.input);
        armOf.set(j, p.arm);
        return j;
      });
      records = await runPhases(journeys, deps.httpConcurrency ?? 6);
    } finally {
      await agent.close();
    }
  }

  await deps.waitForLog(newestPosition(records), deps.storeWaitMs ?? 30_000);
  const stored = await readStored(
    db,
    records.map((r) => r.participant.userId),
    records.flatMap((r) => r.acknowledged),
  );
  const arms: ArmUnderTest[] = groups.map((g, a) => ({
    groupId: g.id,
    name: g.name,
    journeys: records.filter((_r, i) => planned[i]?.arm === a),
  }));
  const warnings: string[] = [];
  const unfinished = records.filter((r) => !r.declined && !r.finished).length;
  const minutes = count(completion?.after_feed_minutes ?? 0, "minute", "minutes");
  if (design.needsFeedMinutes && unfinished > 0)
    warnings.push(
      `The completion rule asks for ${minutes} on the pages, which a dry run does not wait for: ${count(unfinished, "simulated participant", "simulated participants")} did not reach the completion within the run's budget, so the completion and its return link were not tested. The rest of the journey was checked.`,
    );
  if (beyond !== null) warnings.push(beyondBudgetWarning(beyond));
  const tooShort = plan.browser ? shortWindowsWarning(schedule, Math.max(1, ...sessionsOf)) : null;
  if (tooShort !== null) warnings.push(tooShort);
  warnings.push(...scheduleWarnings(records, beyond));
  // Those a window past the budget stopped are in the schedule's warnings.
  const late = records.filter((r) => r.outOfTime && r.beyondBudget === null).length;
  if (late > 0)
    warnings.push(
      `${count(late, "simulated participant", "simulated participants")} ran out of the run's time budget before their last session; what they did was checked.`,
    );
  const expected = (completion?.after_sessions ?? null) !== null || design.needsFeedMinutes;
  const completionDesign = {
    expected,
    isWarning: design.needsFeedMinutes,
    unreachable: design.needsFeedMinutes
      ? `The completion rule asks for ${minutes} on the pages, which a dry run does not wait for.`
      : !expected
        ? "The study ends for participants when you complete it, which a dry run does not do."
        : beyond !== null
          ? beyondBudgetUntested(beyond)
          : null,
  };
  const share = (a: number) => {
    const c = served.get(a);
    return c && c.pages > 0 ? Math.round((c.model / c.pages) * 1000) / 1000 : null;
  };
  return {
    arms: arms.map((arm, a) => ({
      ...armReport(arm, stored, completionDesign),
      served_by_model: learnedArms.has(a) ? share(a) : null,
    })),
    warnings,
  };
}
