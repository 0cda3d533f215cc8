import {
  chooseLanguage,
  type JoinResult,
  languageFor,
  type Participant,
  type ParticipantListQuery,
  type ParticipantPage,
  type ParticipantSummary,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import { iso, isUniqueViolation, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { experimentExists, lockExperiment } from "../experiments/queries/experiments.queries.ts";
import { isArmOf } from "../groups/queries/groups.queries.ts";
import { conflict, forbidden, notFound, unprocessable } from "../http/errors.ts";
import { type LanguageColumns, languageFrom, storeLanguage } from "../study/language.ts";
import { chooseArm } from "./assignment/assign.ts";
import { validJoinSignature } from "./join-signature.ts";
import { participantPage, type UserRow } from "./participants.list.ts";

const OPEN_STATUSES = new Set(["running", "completed"]);

/** The experiment states a dry run may run in (api.md "Simulated participants"). */
const DRY_RUN_STATUSES = new Set(["draft", "running"]);

/**
 * How a simulated participant's login id starts. It is a convention the runner keeps so that people
 * can tell them apart, never the mark: `users.simulated` is (a real participant may be `sim-7`).
 */
const SIMULATED_LOGIN_PREFIX = "sim-";

const duplicateLogin = (loginId: string) =>
  conflict("duplicate_login_id", `Participant "${loginId}" already exists in this experiment.`);

/** A row as the join reads it back: the language and the link parameters recorded so far. */
type JoinedRow = UserRow & { language: string | null; recruiting: unknown };

/** The link parameters a join carried, without the absent ones. */
const given = (
  recruiting: Readonly<Record<string, string | undefined>> | undefined,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(recruiting ?? {}).filter((e): e is [string, string] => e[1] !== undefined),
  );

const presentParticipant = (r: UserRow): Participant => ({
  user_id: r.id,
  login_id: r.login_id,
  group_id: r.group_id,
  created_at: iso(r.created_at),
});

/** 422 `unknown_group` unless the group is one of the experiment's arms. */
async function assertGroupOf(trx: Knex.Transaction, experimentId: string, groupId: string): Promise<void> {
  if (!(await isArmOf(trx, experimentId, groupId)))
    throw unprocessable("unknown_group", "The arm does not belong to this experiment.", {
      field: "group_id",
    });
}

export interface ParticipantsServiceDeps extends ServiceDeps {
  /** `FEEDLAB_JOIN_SECRET`: when set, joins need a valid signature (api.md). */
  readonly joinSecret?: string | null;
}

export function createParticipantsService({ db, newId, now, joinSecret = null }: ParticipantsServiceDeps) {
  /**
   * Assigns a group under a row lock on the experiment, so concurrent joins see each other's counts
   * (balanced even under a burst) and a login id joining twice at once gets one user. Real and
   * simulated participants are balanced apart: each counts only its own kind, so a dry run never
   * shifts where real participants go (api.md "Simulated participants").
   */
  async function assign(
    trx: Knex.Transaction,
    experimentId: string,
    loginId: string,
    options: {
      groupId?: string;
      recruiting?: Readonly<Record<string, string | undefined>>;
      simulated?: boolean;
      language?: string;
    } = {},
  ) {
    const simulated = options.simulated === true;
    const existing = await trx<UserRow>("users")
      .where({ experiment_id: experimentId, login_id: loginId })
      .first();
    if (existing) return { user: existing, created: false };
    const at = now();
    const kept = given(options.recruiting);
    // A researcher's pre-registration names the arm: no method chose it (api.md: `manual`).
    // Null: the method waits for the newcomer's pre survey answers (api.md "Assignment (wave 4)").
    const chosen = options.groupId
      ? {
          groupId: options.groupId,
          assignment: { method: "manual", probability: null, at: at.toISOString() },
        }
      : await chooseArm(
          trx,
          (await lockExperiment<{ id: string; assignment: unknown; assignment_state: unknown }>(
            trx,
            experimentId,
            "id",
            "assignment",
            "assignment_state",
          )) ?? { id: experimentId, assignment: null, assignment_state: null },
          { loginId, simulated, recruiting: kept },
          at,
        );
    const user: UserRow = {
      id: newId(),
      experiment_id: experimentId,
      login_id: loginId,
      group_id: chosen?.groupId ?? null,
      created_at: at,
      simulated,
    };
    await trx("users").insert({
      ...user,
      ...(chosen ? { assignment: JSON.stringify(chosen.assignment) } : {}),
      ...(Object.keys(kept).length > 0 ? { recruiting: JSON.stringify(kept) } : {}),
      ...(options.language === undefined ? {} : { language: options.language }),
    });
    return { user, created: true };
  }

  /**
   * A returning participant's link parameters: those not recorded yet are kept (a participant the
   * researcher pre-registered arrives by a Prolific link only after their row exists), and those
   * recorded by an earlier arrival stay as they were.
   */
  async function recordRecruiting(
    trx: Knex.Transaction,
    user: JoinedRow,
    recruiting: Readonly<Record<string, string | undefined>> | undefined,
  ) {
    const stored = json<Record<string, string> | null>(user.recruiting, null);
    const merged = { ...given(recruiting), ...stored };
    if (Object.keys(merged).length > Object.keys(stored ?? {}).length)
      await trx("users")
        .where({ id: user.id })
        .update({ recruiting: JSON.stringify(merged) });
  }

  return {
    /** api.md join: creates the participant on first join, resumes it (same user, same group) afterwards. */
    /**
     * `wanted`: the languages asked for, best first (the link's `lang`, then the browser's): a newcomer
     * gets the first the study lists, else its default; a returning participant keeps theirs unless
     * the link names another listed one (the change is recorded).
     */
    async join(
      experimentId: string,
      loginId: string,
      recruiting?: Readonly<Record<string, string | undefined>>,
      sig?: string,
      wanted: { readonly lang?: string; readonly browser?: readonly string[] } = {},
    ): Promise<JoinResult> {
      if (joinSecret !== null && !validJoinSignature(joinSecret, experimentId, loginId, sig))
        throw forbidden(
          "bad_signature",
          "This study link is not valid for this participant ID. Please use the link you were given.",
        );
      const user = await db.transaction(async (trx) => {
        const exp = await lockExperiment<{ status: string } & Omit<LanguageColumns, "language">>(
          trx,
          experimentId,
          "status",
          "languages",
          "default_language",
          "language_switch",
        );
        if (!exp) throw notFound("experiment");
        // api.md join rules: newcomers only while running; a returning participant of a completed
        // study comes back for its post survey and completion page; a paused study says so.
        const returning = await trx<JoinedRow>("users")
          .where({ experiment_id: experimentId, login_id: loginId })
          .first();
        // A login id never makes a participant simulated, nor lets a person in as one.
        if (returning?.simulated) throw duplicateLogin(loginId);
        if (returning) {
          if (exp.status === "paused")
            throw forbidden("experiment_paused", "This study is paused. Please come back later.");
          if (!OPEN_STATUSES.has(exp.status))
            throw forbidden("experiment_not_open", "This study is not open right now.");
          await recordRecruiting(trx, returning, recruiting);
          // Theirs, unless the link names another of the study's (or they have none yet).
          const had = returning.language;
          const current = languageFrom({ ...exp, language: had });
          const asked = wanted.lang === undefined ? null : languageFor(wanted.lang, current.languages);
          if (had === null || (asked !== null && asked !== current.language)) {
            const to =
              asked ?? chooseLanguage(wanted.browser ?? [], current.languages, current.defaultLanguage);
            await storeLanguage(trx, returning.id, had === null ? null : current.language, to, now());
          }
          return returning;
        }
        if (exp.status !== "running")
          throw forbidden("experiment_not_open", "This study is not open right now.");
        const { languages, defaultLanguage } = languageFrom({ ...exp, language: null });
        const language = chooseLanguage(
          [...(wanted.lang === undefined ? [] : [wanted.lang]), ...(wanted.browser ?? [])],
          languages,
          defaultLanguage,
        );
        return (await assign(trx, experimentId, loginId, { recruiting, language })).user;
      });
      return {
        user_id: user.id,
        login_id: user.login_id,
        experiment_id: user.experiment_id,
        group_id: user.group_id,
      };
    },

    /** Admin pre-registration; with a group_id the participant goes to that group, else balanced. */
    async create(experimentId: string, loginId: string, groupId?: string): Promise<Participant> {
      try {
        return await db.transaction(async (trx) => {
          const exp = await lockExperiment(trx, experimentId, "id");
          if (!exp) throw notFound("experiment");
          if (groupId) await assertGroupOf(trx, experimentId, groupId);
          const { user, created } = await assign(trx, experimentId, loginId, { groupId });
          if (!created) throw duplicateLogin(loginId);
          return presentParticipant(user);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicateLogin(loginId);
        throw err;
      }
    },

    /**
     * A simulated participant of a dry run (api.md "Simulated participants"), for the server-side
     * runner only: on a `draft` or `running` experiment (409 `experiment_not_open` otherwise), in
     * `groupId` when given (422 `unknown_group` for an arm of another experiment), else assigned by
     * weight among the experiment's simulated participants alone. `loginId` must start `sim-`:
     * another is a bug of the caller, so it throws rather than answering 4xx.
     */
    async createSimulated(experimentId: string, loginId: string, groupId?: string): Promise<Participant> {
      if (!loginId.startsWith(SIMULATED_LOGIN_PREFIX))
        throw new Error(
          `a simulated participant's login id starts "${SIMULATED_LOGIN_PREFIX}": "${loginId}"`,
        );
      try {
        return await db.transaction(async (trx) => {
          const exp = await lockExperiment<{ status: string }>(trx, experimentId, "status");
          if (!exp) throw notFound("experiment");
          if (!DRY_RUN_STATUSES.has(exp.status))
            throw conflict(
              "experiment_not_open",
              `A dry run needs a draft or running experiment: this one is ${exp.status}.`,
            );
          if (groupId) await assertGroupOf(trx, experimentId, groupId);
          const { user, created } = await assign(trx, experimentId, loginId, { groupId, simulated: true });
          if (!created) throw duplicateLogin(loginId);
          return presentParticipant(user);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw duplicateLogin(loginId);
        throw err;
      }
    },

    /** A page of the experiment's participants (participants.list.ts); 404 for an unknown experiment. */
    async list(experimentId: string, query: ParticipantListQuery = {}): Promise<ParticipantPage> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      return participantPage(db, experimentId, query, { now: now(), joinSecret });
    },

    /**
     * One participant as the list shows them (their sessions counted as completion counts them: every
     * session they registered); 404 for an unknown one.
     */
    async get(userId: string): Promise<ParticipantSummary> {
      const user = await db("users")
        .where({ id: userId })
        .first<{ experiment_id: string } | undefined>("experiment_id");
      const page = user
        ? await participantPage(db, user.experiment_id, {}, { now: now(), joinSecret, userId })
        : null;
      const found = page?.items[0];
      if (!found) throw notFound("participant");
      return found;
    },

    /**
     * Excludes a participant from analysis (kept in the data; flagged in the exports, left out of the
     * stats) or includes them again. Excluding needs a reason.
     */
    async setExcluded(userId: string, excluded: boolean, reason?: string): Promise<void> {
      const text = reason?.trim() ?? "";
      if (excluded && text === "")
        throw unprocessable(
          "reason_required",
          "Say why the participant is excluded: the reason is exported with the data.",
          {
            field: "reason",
          },
        );
      const n = await db("users")
        .where({ id: userId })
        .update(
          excluded
            ? { excluded_at: db.raw("coalesce(excluded_at, ?)", [now()]), excluded_reason: text }
            : { excluded_at: null, excluded_reason: null },
        );
      if (n === 0) throw notFound("participant");
    },
  };
}

export type ParticipantsService = ReturnType<typeof createParticipantsService>;
