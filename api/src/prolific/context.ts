import type { ParticipantQuality, ProlificLink } from "@feedlab/schemas";
import type { Logger } from "pino";
import type { AuditService } from "../audit/audit.service.ts";
import type { ServiceDeps } from "../deps.ts";
import { exclusionRulesOf } from "../experiments/exclusion-rules.ts";
import { prolificLinkOf } from "../experiments/experiments.service.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { conflict, HttpError, notFound } from "../http/errors.ts";
import { prolificParticipants } from "../participants/queries/users.queries.ts";
import { participantQualities } from "../quality/quality.service.ts";
import { rulesHolding, ruleText } from "../quality/rules.ts";
import { type ListedSubmission, type ProlificClient, ProlificError, studySubmissions } from "./client.ts";

export interface ProlificServiceDeps extends ServiceDeps {
  readonly audit: AuditService;
  readonly log: Logger;
  /** Null: no token, and the Prolific routes answer 409 prolific_not_configured. */
  readonly client: ProlificClient | null;
}

/** 503 `prolific_unavailable` or 502 `prolific_refused`, with Prolific's words. */
export function failureOf(err: unknown): HttpError {
  if (!(err instanceof ProlificError)) throw err;
  return err.transient
    ? new HttpError(
        503,
        "prolific_unavailable",
        `Prolific could not be reached or failed: ${err.message}. Nothing was marked done; try again.`,
        { attempts: err.attempts },
      )
    : new HttpError(502, "prolific_refused", `Prolific refused: ${err.message}`, {
        status: err.status,
        attempts: err.attempts,
      });
}

/**
 * What every Prolific operation needs: the client (409 prolific_not_configured without a token), the
 * experiment's linked study (409 prolific_not_linked), one audit entry per operation, and the
 * experiment's participants by Prolific participant id with their quality and the rules that hold.
 */
export function createProlificContext(deps: ProlificServiceDeps) {
  const { db, newId, now, audit, log, client } = deps;
  function configured(): ProlificClient {
    if (!client)
      throw conflict(
        "prolific_not_configured",
        "Prolific is not set up on this server: set FEEDLAB_PROLIFIC_TOKEN to the workspace's API token.",
      );
    return client;
  }

  async function linkOf(experimentId: string): Promise<ProlificLink> {
    const row = await experimentRow<{ prolific: unknown }>(db, experimentId, "prolific");
    if (!row) throw notFound("experiment");
    const link = prolificLinkOf(row.prolific);
    if (!link)
      throw conflict(
        "prolific_not_linked",
        "This experiment is not linked to a Prolific study: enter the study's id under Prolific first.",
      );
    return link;
  }

  async function record(
    action: Parameters<AuditService["record"]>[0]["action"],
    experimentId: string,
    admin: string | null,
    details: Record<string, unknown>,
  ) {
    try {
      // `about` names the experiment, so its members see the entry (docs/teams.md, The audit log).
      const about = await audit.subjects(action, { id: experimentId }, {});
      await audit.record({ admin, action, target: experimentId, details: { ...details, about } });
    } catch (err) {
      log.error({ err, action }, "could not record a Prolific call in the audit log");
    }
  }

  /** The experiment's participants by Prolific participant id, with their quality and the rules that hold. */
  async function participantsByPid(experimentId: string) {
    const [people, qualities, rules] = await Promise.all([
      prolificParticipants(db, experimentId),
      participantQualities(db, experimentId),
      exclusionRulesOf(db, experimentId),
    ]);
    const quality = new Map(qualities.map((q) => [q.user_id, q]));
    const byPid = new Map<
      string,
      (typeof people)[number] & { quality: ParticipantQuality | undefined; rules: string[] }
    >();
    for (const p of people) {
      const q = quality.get(p.user_id);
      byPid.set(p.participant_id, {
        ...p,
        quality: q,
        rules: q ? rulesHolding(rules, q).map(ruleText) : [],
      });
    }
    return byPid;
  }

  /** Whether a participant counts as included: finished, excluded neither by the rules nor by hand. */
  const included = (p: {
    finished: boolean;
    excluded_by_hand: boolean;
    quality: ParticipantQuality | undefined;
  }) => p.finished && !p.excluded_by_hand && p.quality?.excluded_by_rules !== true;

  /** Records a call Prolific did not accept (with `details`), and answers the HTTP error to throw. */
  async function failed(
    action: Parameters<typeof record>[0],
    experimentId: string,
    admin: string | null,
    details: Record<string, unknown>,
    err: unknown,
  ): Promise<HttpError> {
    await record(action, experimentId, admin, {
      ...details,
      ok: false,
      error: (err as Error).message,
      attempts: (err as ProlificError).attempts ?? 1,
    });
    return failureOf(err);
  }

  /** The linked study's submissions, the listing recorded in the audit log (`prolific.submissions`). */
  async function listSubmissions(
    c: ProlificClient,
    link: ProlificLink,
    experimentId: string,
    admin: string | null,
  ): Promise<ListedSubmission[]> {
    let listed: { items: ListedSubmission[]; attempts: number };
    try {
      listed = await studySubmissions(c, link.study_id);
    } catch (err) {
      throw await failed("prolific.submissions", experimentId, admin, { study_id: link.study_id }, err);
    }
    await record("prolific.submissions", experimentId, admin, {
      study_id: link.study_id,
      ok: true,
      submissions: listed.items.length,
      attempts: listed.attempts,
    });
    return listed.items;
  }

  return {
    db,
    newId,
    now,
    client,
    configured,
    linkOf,
    record,
    failed,
    listSubmissions,
    participantsByPid,
    included,
  };
}

export type ProlificContext = ReturnType<typeof createProlificContext>;
