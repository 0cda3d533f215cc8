import type { ApiClient } from "../../api/client.ts";
import { participantsApi } from "../../api/participants.ts";
import type {
  ParticipantSummary as Participant,
  ParticipantListQuery,
  ParticipantSort,
} from "../../types.ts";

/** Rows of the console's participants table a page. */
export const PARTICIPANTS_PAGE_SIZE = 50;

/** The table's orders, as the researcher picks them. */
export const SORT_LABELS: Record<ParticipantSort, string> = {
  joined_at: "Join order (first joined first)",
  "-joined_at": "Newest joined first",
  "-last_seen_at": "Last seen (most recent first)",
  last_seen_at: "Last seen (longest ago first)",
  login_id: "Login ID (A to Z)",
  "-login_id": "Login ID (Z to A)",
};

/** The statuses the table filters by, in the words it shows them in. */
export const STATUS_FILTERS: Record<NonNullable<ParticipantListQuery["status"]>, string> = {
  joined: "Joined, no activity yet",
  started: "Started",
  lapsed: "Lapsed (missed a session's window)",
  declined: "Declined consent",
  finished: "Finished",
};

/** At most this many pages of 1,000 are read by `everyParticipant`. */
const MAX_PAGES = 100;

/**
 * Every participant the query matches, page after page: for a list the console needs whole (the
 * simulated participants a dry run left), never for the participants table, which pages.
 */
export async function everyParticipant(
  client: ApiClient,
  experimentId: string,
  query: Omit<ParticipantListQuery, "cursor" | "limit"> = {},
): Promise<Participant[]> {
  const all: Participant[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await participantsApi.list(client, experimentId, { ...query, limit: 1000, cursor });
    all.push(...r.items);
    if (!r.next_cursor) break;
    cursor = r.next_cursor;
  }
  return all;
}

/**
 * A participant's own link: the study link with their login ID, and the `sig` the server asks for when
 * join links are signed (FEEDLAB_JOIN_SECRET).
 */
export function joinLink(studyLink: string, p: Pick<Participant, "login_id" | "join_sig">): string {
  const sig = p.join_sig ? `&sig=${p.join_sig}` : "";
  return `${studyLink}?login_id=${encodeURIComponent(p.login_id)}${sig}`;
}

/** The participant's arm by name: a dash before assignment, a note when the arm was deleted since. */
export function armOf(groupNames: ReadonlyMap<string, string>, p: Pick<Participant, "group_id">): string {
  if (!p.group_id) return "—";
  return groupNames.get(p.group_id) ?? "(deleted arm)";
}

/**
 * Where the participant stands, as the researcher reads it. A dry run's simulated participant is never
 * "active now": nobody is there, the run just went through the pages.
 */
export function statusOf(
  p: Pick<Participant, "status" | "active_now" | "consented_at"> & Partial<Pick<Participant, "simulated">>,
): string {
  if (p.status === "finished") return "Finished";
  if (p.status === "lapsed") return "Lapsed";
  if (p.status === "declined") return "Declined consent";
  if (p.active_now && p.simulated !== true) return "Active now";
  if (p.status === "started") return p.consented_at ? "Consented, started" : "Started";
  return p.consented_at ? "Consented" : "Joined";
}

/**
 * The badge tone of a participant's status (app.css `.badge`): finished good, lapsed bad (final: a
 * window of the schedule closed before they came back), active now informative, the others plain.
 */
export function statusTone(
  p: Pick<Participant, "status" | "active_now"> & Partial<Pick<Participant, "simulated">>,
): "good" | "bad" | "info" | "" {
  if (p.status === "finished") return "good";
  if (p.status === "lapsed") return "bad";
  if (p.status === "declined") return "";
  return p.active_now && p.simulated !== true ? "info" : "";
}

/** What a status badge explains on hover, for the statuses whose word needs it. */
export const STATUS_TITLES: Partial<Record<Participant["status"], string>> = {
  lapsed: "A window of the schedule closed before they came back: the study ended for them, without a code",
};

/** The surveys the participant answered and closed unanswered, or a dash for none. */
export function surveysOf(p: Pick<Participant, "surveys_answered" | "surveys_dismissed">): string {
  const parts = [];
  if (p.surveys_answered > 0) parts.push(`${p.surveys_answered} answered`);
  if (p.surveys_dismissed > 0) parts.push(`${p.surveys_dismissed} closed`);
  return parts.length > 0 ? parts.join(" · ") : "—";
}
