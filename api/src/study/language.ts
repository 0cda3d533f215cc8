import { DEFAULT_LANGUAGE, languageFor } from "@feedlab/schemas";
import type { Knex } from "knex";
import { json } from "../db/present.ts";
import { experimentRow } from "../experiments/queries/experiments.queries.ts";
import { participantRow, setParticipantLanguage } from "../participants/queries/users.queries.ts";

/** A participant's language and the study's (api.md "Participant languages"). */
export interface ParticipantLanguage {
  /** The language the participant's pages and texts are in: one of `languages`. */
  readonly language: string;
  readonly languages: readonly string[];
  readonly defaultLanguage: string;
  /** Whether the participant may change it (the experiment's `language_switch`). */
  readonly switchable: boolean;
}

/** The study's columns a participant's language is chosen among, as the database answers them. */
export interface LanguageColumns {
  readonly language: string | null;
  readonly languages: unknown;
  readonly default_language: string;
  readonly language_switch: boolean;
}

/**
 * A participant's language from their stored choice: it, while the study still lists it, else the
 * study's default (a participant who joined before the study had languages, or whose language the
 * researcher removed since).
 */
export function languageFrom(r: LanguageColumns): ParticipantLanguage {
  const languages = json<string[]>(r.languages, [DEFAULT_LANGUAGE]);
  return {
    language: chosenLanguage(r.language, languages, r.default_language),
    languages,
    defaultLanguage: r.default_language,
    switchable: r.language_switch,
  };
}

/** A participant's language from their stored choice alone (see `languageFrom`): exports read this. */
export const chosenLanguage = (
  stored: string | null,
  languages: readonly string[],
  defaultLanguage: string,
): string => (stored === null ? null : languageFor(stored, languages)) ?? defaultLanguage;

/** The columns of `languageFrom`, for a query over `users as u` joined to `experiments as e`. */
export const LANGUAGE_COLUMNS = ["u.language", "e.languages", "e.default_language", "e.language_switch"];

/** A participant's language; null for an unknown participant. */
export async function languageOf(
  db: Knex | Knex.Transaction,
  userId: string,
): Promise<ParticipantLanguage | null> {
  const user = await participantRow<{ language: string | null; experiment_id: string }>(
    db,
    userId,
    "language",
    "experiment_id",
  );
  if (user === undefined) return null;
  const study = await experimentRow<Omit<LanguageColumns, "language">>(
    db,
    user.experiment_id,
    "languages",
    "default_language",
    "language_switch",
  );
  return study === undefined ? null : languageFrom({ ...study, language: user.language });
}

/** Stores a participant's language, recording the change from the one they had (none when the same). */
export async function storeLanguage(
  trx: Knex.Transaction,
  userId: string,
  from: string | null,
  to: string,
  at: Date,
): Promise<void> {
  await setParticipantLanguage(trx, userId, to);
  if (from !== null && from !== to)
    await trx("participant_language_changes").insert({
      user_id: userId,
      from_language: from,
      to_language: to,
      at,
    });
}
