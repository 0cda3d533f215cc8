import { Readable } from "node:stream";
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

/**
 * One row per participant of an experiment (api.md), in join order: the arm's name, whether they
 * started (any event in the log) and their sessions, events and last event. `consented_at` and
 * `finished_at` stay empty until the study flow records them. Read a page of participants at a time.
 */
export function participantsCsv(db: Db, experimentId: string, options: { safe?: boolean } = {}): Readable {
  const safe = options.safe === true;
  return Readable.from(
    (async function* () {
      yield csvRow(PARTICIPANT_CSV_COLUMNS);
      for (let offset = 0; ; offset += PAGE) {
        const rows = (await db("users as u")
          .join("groups as g", "g.id", "u.group_id")
          .leftJoin("session_activity as a", "a.user_id", "u.id")
          .where("u.experiment_id", experimentId)
          .groupBy("u.id", "u.login_id", "u.group_id", "g.name", "u.created_at")
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
            db.raw("(select count(*) from sessions s where s.user_id = u.id) as sessions"),
            db.raw("coalesce(sum(a.event_count), 0) as events"),
            db.raw("max(a.last_received_at) as last_seen_at"),
          )) as {
          id: string;
          login_id: string;
          group_id: string;
          group_name: string;
          created_at: Date;
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
