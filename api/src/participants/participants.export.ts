import { Readable } from "node:stream";
import { RECRUITING_PARAMETERS } from "@feedlab/schemas";
import type { Db } from "../db/db.ts";
import { csvRow } from "../http/csv.ts";

/** api.md's columns of the participants CSV, in order. */
export const PARTICIPANT_CSV_COLUMNS = [
  "user_id",
  "login_id",
  "group_id",
  "group_name",
  "status",
  "joined_at",
  "consented_at",
  "finished_at",
  "sessions",
  "events",
  "last_seen_at",
] as const;

const PAGE = 2000;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

const recruitingOf = (v: Record<string, string> | string | null): Record<string, string> =>
  v === null ? {} : typeof v === "string" ? (JSON.parse(v) as Record<string, string>) : v;

/**
 * One row per participant of an experiment (api.md), in join order: the arm's name, whether they
 * started (any event in the log) and their sessions, events and last event. `consented_at` and
 * `finished_at` stay empty until the study flow records them; then one column per recruiting
 * parameter any participant's link carried (PROLIFIC_PID, workerId, ...). Read a page at a time.
 */
export function participantsCsv(db: Db, experimentId: string, options: { safe?: boolean } = {}): Readable {
  const safe = options.safe === true;
  return Readable.from(
    (async function* () {
      const present = new Set(
        (
          (await db("users")
            .where({ experiment_id: experimentId })
            .whereNotNull("recruiting")
            .distinct(db.raw("jsonb_object_keys(recruiting) as key"))) as { key: string }[]
        ).map((r) => r.key),
      );
      const recruiting = RECRUITING_PARAMETERS.filter((k) => present.has(k));
      yield csvRow([...PARTICIPANT_CSV_COLUMNS, ...recruiting]);
      for (let offset = 0; ; offset += PAGE) {
        const rows = (await db("users as u")
          .join("groups as g", "g.id", "u.group_id")
          .leftJoin("session_activity as a", "a.user_id", "u.id")
          .where("u.experiment_id", experimentId)
          .groupBy("u.id", "u.login_id", "u.group_id", "g.name", "u.created_at", "u.recruiting")
          .orderBy("u.created_at")
          .orderBy("u.login_id")
          .offset(offset)
          .limit(PAGE)
          .select(
            "u.id",
            "u.login_id",
            "u.group_id",
            "g.name as group_name",
            "u.created_at",
            "u.recruiting",
            db.raw("(select count(*) from sessions s where s.user_id = u.id) as sessions"),
            db.raw("coalesce(sum(a.event_count), 0) as events"),
            db.raw("max(a.last_received_at) as last_seen_at"),
          )) as {
          id: string;
          login_id: string;
          group_id: string;
          group_name: string;
          created_at: Date;
          recruiting: Record<string, string> | string | null;
          sessions: number | string;
          events: number | string;
          last_seen_at: Date | null;
        }[];
        yield rows
          .map((r) =>
            csvRow(
              [
                r.id,
                r.login_id,
                r.group_id,
                r.group_name,
                Number(r.events) > 0 ? "started" : "joined",
                iso(r.created_at),
                null,
                null,
                Number(r.sessions),
                Number(r.events),
                iso(r.last_seen_at),
                ...recruiting.map((k) => recruitingOf(r.recruiting)[k] ?? null),
              ],
              safe,
            ),
          )
          .join("");
        if (rows.length < PAGE) return;
      }
    })(),
  );
}
