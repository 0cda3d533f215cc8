import type { ParticipantSummary as Participant } from "../../types.ts";

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

/** Where the participant stands, as the researcher reads it. */
export function statusOf(p: Pick<Participant, "status" | "active_now" | "consented_at">): string {
  if (p.status === "finished") return "Finished";
  if (p.status === "declined") return "Declined consent";
  if (p.active_now) return "Active now";
  if (p.status === "started") return p.consented_at ? "Consented, started" : "Started";
  return p.consented_at ? "Consented" : "Joined";
}

/** The surveys the participant answered and closed unanswered, or a dash for none. */
export function surveysOf(p: Pick<Participant, "surveys_answered" | "surveys_dismissed">): string {
  const parts = [];
  if (p.surveys_answered > 0) parts.push(`${p.surveys_answered} answered`);
  if (p.surveys_dismissed > 0) parts.push(`${p.surveys_dismissed} closed`);
  return parts.length > 0 ? parts.join(" · ") : "—";
}
