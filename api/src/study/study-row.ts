import type { ExperimentStatus, LocalizedText, NextSession } from "@feedlab/schemas";
import type { Knex } from "knex";
import { notFound } from "../http/errors.ts";
import { LANGUAGE_COLUMNS } from "./language.ts";

/** What the study flow reads of a participant and their experiment (`studyRow`). */
export interface StudyRow {
  user_id: string;
  login_id: string;
  experiment_id: string;
  experiment_status: ExperimentStatus;
  experiment_name: string;
  /** Null, and so the arm's configuration, until assigned (api.md "Assignment (wave 4)"). */
  group_id: string | null;
  algorithm_feed: string | null;
  algorithm_watch: string | null;
  ui_feed: string | null;
  ui_watch: string | null;
  consent_text: LocalizedText | null;
  completion: unknown;
  schedule: unknown;
  reminders: unknown;
  recruiting: unknown;
  consented_at: Date | null;
  consent_version: string | null;
  consent_declined_at: Date | null;
  finished_at: Date | null;
  lapsed_at: Date | null;
  simulated: boolean;
  language: string | null;
  languages: unknown;
  default_language: string;
  language_switch: boolean;
}

/**
 * Whether the experiment's state lets the participant onto the feed and watch pages: a running study
 * lets everyone, a draft only simulated participants (a dry run; api.md "Simulated participants").
 */
export const pagesOpen = (g: { status: ExperimentStatus; simulated: boolean }) =>
  g.status === "running" || (g.status === "draft" && g.simulated);

export const nextSessionOf = (w: { session: number; opens_at: number; closes_at: number }): NextSession => ({
  session: w.session,
  opens_at: new Date(w.opens_at).toISOString(),
  closes_at: new Date(w.closes_at).toISOString(),
});

/**
 * An e-mail address as participants type it: one `@`, a dot in the domain, no spaces or brackets
 * (the SMTP server is the judge of the rest); at most 254 characters (the schema).
 */
export const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:".]+$/;

/** The participant, their group's configuration and their experiment's study flow, in one query. */
export async function studyRow(db: Knex, userId: string): Promise<StudyRow> {
  const r = await db("users as u")
    .join("experiments as e", "e.id", "u.experiment_id")
    .leftJoin("groups as g", "g.id", "u.group_id")
    .where("u.id", userId)
    .first<StudyRow | undefined>(
      "u.id as user_id",
      "u.login_id",
      "u.experiment_id",
      "e.status as experiment_status",
      "e.name as experiment_name",
      "u.group_id",
      "g.algorithm_feed",
      "g.algorithm_watch",
      "g.ui_feed",
      "g.ui_watch",
      "e.consent_text",
      "e.completion",
      "e.schedule",
      "e.reminders",
      "u.recruiting",
      "u.consented_at",
      "u.consent_version",
      "u.consent_declined_at",
      "u.finished_at",
      "u.lapsed_at",
      "u.simulated",
      ...LANGUAGE_COLUMNS,
    );
  if (!r) throw notFound("participant");
  return r;
}
