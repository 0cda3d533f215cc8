import { type EventLog, erasedAmongStatement, erasedOf, type LogErasure } from "@feedlab/ingest";
import { deleteSessionsDeadLetters, eraseReadModels } from "@feedlab/projector";
import type { Knex } from "knex";
import type { AuditService } from "../audit/audit.service.ts";
import type { ServiceDeps } from "../deps.ts";
import { eraseExperiment, experimentExists } from "../experiments/queries/experiments.queries.ts";
import { notFound } from "../http/errors.ts";
import {
  eraseParticipants,
  participantExists,
  participantIdsOf,
} from "../participants/queries/users.queries.ts";
import { sessionIdsOf } from "../sessions/queries/sessions.queries.ts";
import { answersOf } from "../surveys/queries/answers.queries.ts";

export interface ErasureServiceDeps extends ServiceDeps {
  readonly log: Pick<EventLog, "erase">;
  readonly audit: Pick<AuditService, "record" | "subjects">;
  /** Told once participants are gone, so every process drops what it remembers of them. */
  readonly onErased?: () => void;
}

/** What an erasure removed, by kind: counts only, never the data. */
export interface ErasureCounts {
  participants: number;
  sessions: number;
  survey_responses: number;
  survey_dismissals: number;
  /** Records deleted from the embedded log (null on Kafka, where records cannot be counted). */
  log_records: number | null;
  /** Participant keys destroyed on Kafka (0 on the embedded log). */
  log_keys: number;
  /** Rows removed or adjusted per read model. */
  read_models: Record<string, number>;
}

/** Participants erased per transaction when a whole experiment goes. */
const ERASE_CHUNK = 500;

/**
 * Erasure (api.md, participant rights): a participant, or every participant of an experiment, goes
 * from every table and read model and from the event log (deleted on the embedded log; unreadable on
 * Kafka, their key destroyed) in one transaction per batch of participants, and the audit log keeps
 * who did it, when and how many rows, never the data.
 */
export function createErasureService({ db, log, audit, onErased }: ErasureServiceDeps) {
  /** Erases the participants in one transaction; the caller commits and then runs `after`. */
  async function eraseIn(trx: Knex.Transaction, userIds: readonly string[]) {
    const sessionIds = await sessionIdsOf(trx, userIds);
    const answers = await answersOf(trx, userIds);
    const logged: LogErasure = await log.erase({ userIds, sessionIds }, trx);
    const readModels = await eraseReadModels(trx, userIds);
    // Dead letters of their records (kept with the record's key, the session id).
    readModels.dead_letters = await deleteSessionsDeadLetters(trx, sessionIds);
    // Sessions, cookies, survey responses and dismissals, and learned recommendations go with the
    // participant (ON DELETE CASCADE).
    const participants = await eraseParticipants(trx, userIds);
    const counts: ErasureCounts = {
      participants,
      sessions: sessionIds.length,
      survey_responses: answers.responses,
      survey_dismissals: answers.dismissals,
      log_records: logged.records,
      log_keys: logged.keys,
      read_models: readModels,
    };
    return { counts, after: logged.afterCommit };
  }

  function add(total: ErasureCounts, more: ErasureCounts): ErasureCounts {
    const read_models = { ...total.read_models };
    for (const [k, v] of Object.entries(more.read_models)) read_models[k] = (read_models[k] ?? 0) + v;
    return {
      participants: total.participants + more.participants,
      sessions: total.sessions + more.sessions,
      survey_responses: total.survey_responses + more.survey_responses,
      survey_dismissals: total.survey_dismissals + more.survey_dismissals,
      log_records:
        total.log_records === null || more.log_records === null ? null : total.log_records + more.log_records,
      log_keys: total.log_keys + more.log_keys,
      read_models,
    };
  }

  const none = (): ErasureCounts => ({
    participants: 0,
    sessions: 0,
    survey_responses: 0,
    survey_dismissals: 0,
    log_records: 0,
    log_keys: 0,
    read_models: {},
  });

  /** Erases in one transaction, with the audit entry (if any) committed along with it. */
  async function erase(
    userIds: readonly string[],
    entry?: (counts: ErasureCounts) => Parameters<AuditService["record"]>[0],
  ): Promise<ErasureCounts> {
    const { counts, after } = await db.transaction(async (trx) => {
      const done = await eraseIn(trx, userIds);
      if (entry) await audit.record(entry(done.counts), trx);
      return done;
    });
    onErased?.();
    await after();
    return counts;
  }

  return {
    /**
     * Erases one participant. `by` is the admin's username, or null when the participant withdrew.
     * Erasing someone already erased finishes what may be left (the keys' tombstones) and succeeds.
     */
    async participant(userId: string, by: string | null): Promise<ErasureCounts> {
      const known = await participantExists(db, userId);
      if (!known) {
        const erased = erasedOf(await erasedAmongStatement(db, [userId]));
        if (!erased.has(userId)) throw notFound("participant");
      }
      const action = by === null ? "participant.withdraw" : "participant.erase";
      // Their experiment by name, and the participant by id alone: never their login.
      const about = known ? await audit.subjects(action, { user_id: userId }, {}) : [];
      return erase(
        [userId],
        known
          ? (counts) => ({
              admin: by,
              action,
              target: userId,
              details: { rows: counts, about },
            })
          : undefined,
      );
    },

    /**
     * Erases an experiment's simulated participants (dry runs), in batches (the route records the
     * audit entry); their dry runs' reports stay.
     */
    async simulated(experimentId: string): Promise<ErasureCounts> {
      let total = none();
      for (;;) {
        const batch = await participantIdsOf(db, experimentId, { limit: ERASE_CHUNK, simulatedOnly: true });
        if (batch.length === 0) break;
        total = add(total, await erase(batch));
      }
      return total;
    },

    /** Erases an experiment's participants (in batches), then the experiment itself. */
    async experiment(experimentId: string, by: string): Promise<ErasureCounts> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      // Named while it exists, so the log still reads well once it is gone.
      const about = await audit.subjects("experiment.delete", { id: experimentId }, {});
      let total = none();
      for (;;) {
        const batch = await participantIdsOf(db, experimentId, { limit: ERASE_CHUNK });
        if (batch.length === 0) break;
        total = add(total, await erase(batch));
      }
      await db.transaction(async (trx) => {
        await eraseExperiment(trx, experimentId);
        await audit.record(
          { admin: by, action: "experiment.delete", target: experimentId, details: { rows: total, about } },
          trx,
        );
      });
      return total;
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
