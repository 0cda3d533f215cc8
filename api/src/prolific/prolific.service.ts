import type { GroupsBody, GroupsResult, ProlificSubmission, ProlificSubmissions } from "@feedlab/schemas";
import { bonusPlans, createBonuses, payBonuses } from "./bonuses.ts";
import type { ProlificCallRecord } from "./client.ts";
import { createProlificContext, type ProlificServiceDeps } from "./context.ts";
import { approvalsOf } from "./queries/approvals.queries.ts";
import { reviewDecisions } from "./review.ts";

/**
 * Feedlab's side of a Prolific study (api.md "Prolific (wave 4)", docs/prolific.md): its submissions
 * beside the participants' quality, review decisions (review.ts), bonuses paid at most once
 * (bonuses.ts), participant groups. Every operation that calls Prolific is one audit entry
 * (`prolific.*`) with its calls and attempts.
 */
export function createProlificService(deps: ProlificServiceDeps) {
  const cx = createProlificContext(deps);
  return {
    configured: () => cx.client !== null,

    /** `GET .../prolific/submissions`: Prolific's submissions of the linked study beside their participants. */
    async submissions(experimentId: string, admin: string | null): Promise<ProlificSubmissions> {
      const c = cx.configured();
      const link = await cx.linkOf(experimentId);
      const listed = await cx.listSubmissions(c, link, experimentId, admin);
      const [byPid, approvals] = await Promise.all([
        cx.participantsByPid(experimentId),
        approvalsOf(cx.db, experimentId),
      ]);
      return {
        items: listed.map((s): ProlificSubmission => {
          // By the link's SESSION_ID (the submission's id) when it carried one, else by PROLIFIC_PID.
          const bySession = [...byPid.values()].find((x) => x.session_id === s.id);
          const p = bySession ?? byPid.get(s.participant_id);
          const approval = p ? approvals.get(p.user_id) : undefined;
          return {
            submission_id: s.id,
            participant_id: s.participant_id,
            status: s.status,
            user_id: p?.user_id ?? null,
            login_id: p?.login_id ?? null,
            finished: p?.finished ?? false,
            excluded_by_rules: p?.quality?.excluded_by_rules ?? false,
            excluded_by_hand: p?.excluded_by_hand ?? false,
            rules: p?.rules ?? [],
            flags: p?.quality?.flags ?? [],
            auto_approval: approval
              ? { state: approval.state, attempts: approval.attempts, last_error: approval.last_error }
              : null,
          };
        }),
      };
    },

    review: (...args: Parameters<typeof reviewDecisions> extends [unknown, ...infer R] ? R : never) =>
      reviewDecisions(cx, ...args),
    createBonuses: (...args: Parameters<typeof createBonuses> extends [unknown, ...infer R] ? R : never) =>
      createBonuses(cx, ...args),
    bonuses: (experimentId: string) => bonusPlans(cx, experimentId),
    pay: (...args: Parameters<typeof payBonuses> extends [unknown, ...infer R] ? R : never) =>
      payBonuses(cx, ...args),
    /**
     * `POST .../prolific/groups`: adds the finished (or included) participants' Prolific ids to a
     * participant group; `added` counts those Prolific accepted.
     */
    async addToGroup(
      experimentId: string,
      body: GroupsBody,
      admin: string | null,
      dryRun = false,
    ): Promise<GroupsResult> {
      const link = await cx.linkOf(experimentId);
      const byPid = await cx.participantsByPid(experimentId);
      const ids = [...byPid]
        .filter(([, p]) => (body.who === "finished" ? p.finished : cx.included(p)))
        .map(([pid]) => pid);
      const call: ProlificCallRecord = {
        method: "POST",
        path: `/api/v1/participant-groups/${encodeURIComponent(body.participant_group_id)}/participants/`,
        body: { participant_ids: ids },
      };
      if (dryRun) return { added: 0, calls: [call] };
      const c = cx.configured();
      if (ids.length === 0) return { added: 0 };
      try {
        const answer = await c.send<{ results?: { participant_id?: string }[] }>(call);
        const members = new Set((answer.json?.results ?? []).map((r) => r.participant_id));
        const added = ids.filter((id) => members.has(id)).length;
        await cx.record("prolific.group_add", experimentId, admin, {
          study_id: link.study_id,
          participant_group_id: body.participant_group_id,
          who: body.who,
          ok: true,
          sent: ids.length,
          added,
          attempts: answer.attempts,
        });
        return { added };
      } catch (err) {
        throw await cx.failed(
          "prolific.group_add",
          experimentId,
          admin,
          { study_id: link.study_id, participant_group_id: body.participant_group_id },
          err,
        );
      }
    },
  };
}

export type ProlificService = ReturnType<typeof createProlificService>;
