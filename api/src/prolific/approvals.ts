import type { Logger } from "pino";
import type { AuditService } from "../audit/audit.service.ts";
import type { ServiceDeps } from "../deps.ts";
import { prolificLinkOf } from "../experiments/experiments.service.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { prolificParticipants } from "../participants/queries/users.queries.ts";
import { participantQualities } from "../quality/quality.service.ts";
import { type ListedSubmission, type ProlificClient, ProlificError, studySubmissions } from "./client.ts";
import {
  type ApprovalRow,
  claimDueApprovals,
  queueApproval,
  settleApproval,
} from "./queries/approvals.queries.ts";

/** Approval on finish is retried this long after the participant finished (api.md: 24 hours). */
const GIVE_UP_MS = 24 * 3600_000;
/** While a pass works on an approval, another pass leaves it this long. */
const LEASE_MS = 120_000;

/** The wait before a try: 15 s doubling to at most 15 minutes. */
const backoff = (attempts: number, firstMs: number) =>
  Math.min(firstMs * 2 ** Math.max(0, attempts - 1), 15 * 60_000);

export interface ApprovalsDeps extends ServiceDeps {
  readonly client: ProlificClient | null;
  readonly audit: AuditService;
  readonly log: Logger;
  /** How often due approvals are looked for (default 5 s). */
  readonly intervalMs?: number;
  /** The first retry's wait (default 15 s); tests shorten it. */
  readonly retryMs?: number;
}

/**
 * Approval on finish (api.md "Prolific (wave 4)", `on_finish: "approve"`): a finished participant of a
 * linked experiment is queued; a pass approves those the rules and the researcher do not exclude once
 * Prolific holds their submission as awaiting review (the participant's return to Prolific comes after
 * Feedlab's finish), retrying with backoff for up to 24 hours. Those excluded are left for review. Only
 * what Prolific accepted is marked done.
 */
export function createApprovals({
  db,
  now,
  client,
  audit,
  log,
  intervalMs = 5_000,
  retryMs = 15_000,
}: ApprovalsDeps) {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function experimentPass(experimentId: string, due: readonly ApprovalRow[]): Promise<number> {
    const c = client as ProlificClient;
    const at = now();
    const later = async (a: ApprovalRow, error: string) => {
      const attempts = a.attempts + 1;
      const expired = at.getTime() - new Date(a.created_at).getTime() >= GIVE_UP_MS;
      await settleApproval(db, a.user_id, {
        state: expired ? "failed" : "waiting",
        attempts,
        next_at: new Date(at.getTime() + backoff(attempts, retryMs)),
        last_error: expired ? `Gave up after 24 hours: ${error}` : error,
        done_at: null,
      });
    };
    /** Done (Prolific accepted it), or failed for good: left for the researcher's review. */
    const final = (a: ApprovalRow, state: "done" | "failed", error: string | null) =>
      settleApproval(db, a.user_id, {
        state,
        attempts: a.attempts + 1,
        next_at: at,
        last_error: error,
        done_at: state === "done" ? at : null,
      });

    const row = await experimentRow<{ prolific: unknown }>(db, experimentId, "prolific");
    const link = prolificLinkOf(row?.prolific);
    if (link?.on_finish !== "approve") {
      for (const a of due)
        await final(a, "failed", "The experiment no longer approves on finish: left for review.");
      return 0;
    }
    const [people, qualities] = await Promise.all([
      prolificParticipants(db, experimentId),
      participantQualities(db, experimentId),
    ]);
    const person = new Map(people.map((p) => [p.user_id, p]));
    const quality = new Map(qualities.map((q) => [q.user_id, q]));
    let submissions: ListedSubmission[];
    let attempts = 0;
    try {
      ({ items: submissions, attempts } = await studySubmissions(c, link.study_id));
    } catch (err) {
      if (!(err instanceof ProlificError)) throw err;
      for (const a of due) await later(a, err.message);
      return 0;
    }
    const toApprove: { a: ApprovalRow; submission: string }[] = [];
    for (const a of due) {
      const p = person.get(a.user_id);
      if (!p) {
        await final(a, "failed", "The participant joined without a Prolific id: left for review.");
        continue;
      }
      const q = quality.get(a.user_id);
      if (p.excluded_by_hand || q?.excluded_by_rules) {
        await final(a, "failed", "Excluded by the rules or by hand: left for review.");
        continue;
      }
      const s =
        submissions.find((x) => p.session_id !== null && x.id === p.session_id) ??
        submissions.find((x) => x.participant_id === p.participant_id);
      if (!s) await later(a, "Prolific lists no submission of this participant yet.");
      else if (s.status === "APPROVED") await final(a, "done", null);
      else if (s.status === "AWAITING REVIEW") toApprove.push({ a, submission: s.id });
      else if (s.status === "ACTIVE" || s.status === "RESERVED")
        await later(a, `Prolific holds the submission as ${s.status}: waiting for the participant's return.`);
      else await final(a, "failed", `Prolific holds the submission as ${s.status}: left for review.`);
    }
    let approved = 0;
    let failed = 0;
    for (let i = 0; i < toApprove.length; i += 100) {
      const chunk = toApprove.slice(i, i + 100);
      try {
        const answer = await c.send({
          method: "POST",
          path: "/api/v1/submissions/bulk-approve/",
          body: { submission_ids: chunk.map((x) => x.submission) },
        });
        attempts += answer.attempts;
        for (const x of chunk) await final(x.a, "done", null);
        approved += chunk.length;
      } catch (err) {
        if (!(err instanceof ProlificError)) throw err;
        attempts += err.attempts;
        failed += chunk.length;
        for (const x of chunk) await later(x.a, err.message);
      }
    }
    if (approved + failed > 0)
      await audit
        .record({
          admin: null,
          action: "prolific.approve",
          target: experimentId,
          details: {
            about: await audit.subjects("prolific.approve", { id: experimentId }, {}),
            study_id: link.study_id,
            on_finish: true,
            submissions: approved + failed,
            ok: approved,
            failed,
            attempts,
          },
        })
        .catch((err: unknown) => log.error({ err }, "could not record an approval on finish"));
    return approved;
  }

  /** One pass over the due approvals; answers how many Prolific accepted. */
  async function pass(): Promise<number> {
    if (!client) return 0;
    const due = await claimDueApprovals(db, now(), LEASE_MS);
    const byExperiment = Map.groupBy(due, (a) => a.experiment_id);
    let approved = 0;
    for (const [experimentId, rows] of byExperiment) approved += await experimentPass(experimentId, rows);
    return approved;
  }

  let again = false;
  /**
   * Runs a pass, or, while one runs, one more right after it (so an approval queued meanwhile is not
   * left to the next tick); answers how many Prolific accepted.
   */
  const runPass = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let approved = 0;
      do {
        again = false;
        approved += await pass().catch((err: unknown) => {
          log.error({ err }, "approvals on finish: a pass failed");
          return 0;
        });
      } while (again);
      return approved;
    })().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    /** Queues a participant who just finished, when their experiment approves on finish. */
    async finished(userId: string, experimentId: string): Promise<void> {
      if (!client) return;
      const row = await experimentRow<{ prolific: unknown }>(db, experimentId, "prolific");
      if (prolificLinkOf(row?.prolific)?.on_finish !== "approve") return;
      await queueApproval(db, userId, experimentId, now());
      void runPass();
    },
    /** Runs a pass now (tests, and after a participant finishes). */
    pass: runPass,
    start(): void {
      if (timer || !client) return;
      timer = setInterval(() => void runPass(), intervalMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
