import {
  type ProlificCall,
  REJECTION_CATEGORIES,
  REJECTION_MESSAGE_MIN,
  type ReviewBody,
  type ReviewResults,
} from "@feedlab/schemas";
import { unprocessable } from "../http/errors.ts";
import { type ProlificCallRecord, ProlificError } from "./client.ts";
import type { ProlificContext } from "./context.ts";

/** Bulk approvals per request: a failure then leaves whole chunks, never half of one, unknown. */
const APPROVAL_CHUNK = 100;

/**
 * `POST .../prolific/review`: each decision sent as Prolific takes it (approvals in bulk, a chunk
 * per request; a rejection or a return per submission). Every rejection is checked first (a
 * category of Prolific's, a message of at least 100 characters): one that is not answers 422 and
 * nothing is sent. `dryRun`: the calls it would send, none sent.
 */
export async function reviewDecisions(
  cx: ProlificContext,
  experimentId: string,
  body: ReviewBody,
  admin: string | null,
  dryRun = false,
): Promise<ReviewResults> {
  const c = dryRun ? cx.client : cx.configured();
  const link = await cx.linkOf(experimentId);
  const problems = body.decisions.flatMap((d, i) => {
    const out: { field: string; message: string }[] = [];
    if (d.action !== "reject") return out;
    if ([...(d.message ?? "").trim()].length < REJECTION_MESSAGE_MIN)
      out.push({
        field: `decisions[${i}].message`,
        message: `A rejection needs a message of at least ${REJECTION_MESSAGE_MIN} characters for the participant (Prolific's rule); this one has ${[...(d.message ?? "").trim()].length}.`,
      });
    if (!REJECTION_CATEGORIES.includes(d.rejection_category as (typeof REJECTION_CATEGORIES)[number]))
      out.push({
        field: `decisions[${i}].rejection_category`,
        message: `A rejection needs one of Prolific's categories: ${REJECTION_CATEGORIES.join(", ")}.`,
      });
    return out;
  });
  if (problems.length > 0)
    throw unprocessable("invalid_decision", problems.map((p) => p.message).join(" "), { problems });
  const ids = body.decisions.map((d) => d.submission_id);
  if (new Set(ids).size < ids.length)
    throw unprocessable("invalid_decision", "A submission has two decisions: send one per submission.");

  // A return's default reasons: the rules that excluded the participant (by the submission's participant).
  const returns = body.decisions.filter((d) => d.action === "return" && d.reasons === undefined);
  let reasonsOf = new Map<string, string[]>();
  if (returns.length > 0 && c) {
    const listed = await cx.listSubmissions(c, link, experimentId, admin);
    const byPid = await cx.participantsByPid(experimentId);
    reasonsOf = new Map(listed.map((s) => [s.id, byPid.get(s.participant_id)?.rules ?? []] as const));
  }
  const calls: { call: ProlificCallRecord; ids: string[]; action: "approve" | "reject" | "return" }[] = [];
  const approvals = body.decisions.filter((d) => d.action === "approve").map((d) => d.submission_id);
  for (let i = 0; i < approvals.length; i += APPROVAL_CHUNK) {
    const chunk = approvals.slice(i, i + APPROVAL_CHUNK);
    calls.push({
      action: "approve",
      ids: chunk,
      call: {
        method: "POST",
        path: "/api/v1/submissions/bulk-approve/",
        body: { submission_ids: chunk },
      },
    });
  }
  for (const d of body.decisions) {
    if (d.action === "reject")
      calls.push({
        action: "reject",
        ids: [d.submission_id],
        call: {
          method: "POST",
          path: `/api/v1/submissions/${encodeURIComponent(d.submission_id)}/transition/`,
          body: {
            action: "REJECT",
            message: d.message?.trim(),
            rejection_category: d.rejection_category,
          },
        },
      });
    if (d.action === "return") {
      const reasons = d.reasons ?? reasonsOf.get(d.submission_id) ?? [];
      calls.push({
        action: "return",
        ids: [d.submission_id],
        call: {
          method: "POST",
          path: `/api/v1/submissions/${encodeURIComponent(d.submission_id)}/request-return/`,
          body: {
            request_return_reasons:
              reasons.length > 0
                ? reasons
                : ["The study's data quality checks did not accept this submission."],
          },
        },
      });
    }
  }
  if (dryRun)
    return {
      results: body.decisions.map((d) => ({
        submission_id: d.submission_id,
        ok: false,
        error: "dry run: not sent",
      })),
      calls: calls.map(({ call }): ProlificCall => call),
    };
  const sender = cx.configured();
  const outcome = new Map<string, { ok: boolean; error?: string }>();
  const tally = {
    approve: { ok: 0, failed: 0, attempts: 0 },
    reject: { ok: 0, failed: 0, attempts: 0 },
    return: { ok: 0, failed: 0, attempts: 0 },
  };
  for (const { call, ids: targets, action } of calls) {
    try {
      const answer = await sender.send(call);
      tally[action].attempts += answer.attempts;
      tally[action].ok += targets.length;
      for (const id of targets) outcome.set(id, { ok: true });
    } catch (err) {
      if (!(err instanceof ProlificError)) throw err;
      tally[action].attempts += err.attempts;
      tally[action].failed += targets.length;
      for (const id of targets) outcome.set(id, { ok: false, error: err.message });
    }
  }
  for (const action of ["approve", "reject", "return"] as const) {
    const t = tally[action];
    if (t.ok + t.failed === 0) continue;
    await cx.record(`prolific.${action}`, experimentId, admin, {
      study_id: link.study_id,
      submissions: t.ok + t.failed,
      ok: t.ok,
      failed: t.failed,
      attempts: t.attempts,
    });
  }
  return {
    results: body.decisions.map((d) => ({
      submission_id: d.submission_id,
      ...(outcome.get(d.submission_id) ?? { ok: false, error: "not sent" }),
    })),
  };
}
