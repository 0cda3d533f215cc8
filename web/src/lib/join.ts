import { RECRUITING_NAME } from "@feedlab/schemas/http/enums.ts";
import { t } from "./i18n/messages.svelte.ts";
import { ApiError, type ParticipantApi } from "./participant-api.ts";
import { ENTRY_REFERRER_KEY } from "./platform/tracking/session.ts";
import { webStore } from "./platform/tracking/storage.ts";
import { participantSession } from "./session.svelte.ts";

/**
 * Query parameters a study link may carry the participant's id in, in order of preference: our own,
 * then the names recruitment platforms append: Prolific (`PROLIFIC_PID`), generic panels
 * (`participant_id`, `participantId`, CloudResearch Connect), Amazon Mechanical Turk (`workerId`),
 * and the panel exchanges behind Qualtrics and Lucid/Cint (`PSID`, `RID`).
 */
const LOGIN_ID_PARAMS = [
  "login_id",
  "PROLIFIC_PID",
  "participant_id",
  "participantId",
  "workerId",
  "worker_id",
  "PSID",
  "RID",
] as const;

export function loginIdFromQuery(params: URLSearchParams): string | null {
  for (const name of LOGIN_ID_PARAMS) {
    const value = params.get(name)?.trim();
    if (value) return value;
  }
  return null;
}

/** Joins (or resumes) the study and ties this tab's session to the participant. */
/** Link parameters that are not recruiting parameters: the participant's id, its signature, the language. */
const NOT_RECRUITING = new Set(["login_id", "sig", "lang"]);

/**
 * The recruiting parameters of a study link, to keep with the participant (api.md "Assignment (wave 4)":
 * every query parameter but login_id, sig and lang, at most 20, values up to 200 characters): Prolific's
 * and MTurk's ids, and whatever a researcher adds to balance on (`?age_band=18-24`).
 */
export function recruitingFromQuery(query: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, raw] of query) {
    if (NOT_RECRUITING.has(key) || key in out || !RECRUITING_NAME.test(key)) continue;
    const value = raw.trim();
    if (value) out[key] = value.slice(0, 200);
    if (Object.keys(out).length === 20) break;
  }
  return out;
}

/** A BCP 47 tag as the join body takes it (a link's `lang` of another shape is left out). */
const LANG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

export async function joinStudy(
  client: ParticipantApi,
  experimentId: string,
  loginId: string,
  recruiting: Record<string, string> = {},
  sig: string | null = null,
  lang: string | null = null,
): Promise<void> {
  const joined = await client.join({
    experiment_id: experimentId,
    login_id: loginId,
    ...(Object.keys(recruiting).length > 0 ? { recruiting } : {}),
    ...(sig ? { sig } : {}),
    // The link's language, when it names one the server can read (api.md "Participant languages").
    ...(lang && LANG.test(lang) ? { lang } : {}),
  });
  participantSession.bindUser(joined.user_id);
}

/**
 * Leaves the join page for the feed with a full page load: the participant pages are their own small
 * app (web/src/participant), not part of this one. The join page's referrer (the recruitment site) is
 * kept for the session's SESSION_START. The returned promise never settles: the document is going away.
 */
export function openFeed(): Promise<never> {
  try {
    webStore("session").setItem(ENTRY_REFERRER_KEY, document.referrer);
  } catch {
    // Without storage SESSION_START names the join page as its referrer.
  }
  window.location.replace("/");
  return new Promise(() => {});
}

/** What the participant is told when joining fails (unexpected failures are also logged). */
export function joinErrorMessage(error: unknown): string {
  if (!(error instanceof ApiError) || error.status === 0 || error.status >= 500)
    console.error("join failed", error);
  if (error instanceof ApiError) {
    if (error.status === 404) return t("join.invalidLink");
    if (error.status === 403 && error.code === "bad_signature") return t("join.badSignature");
    if (error.status === 403 && error.code === "experiment_not_open") return t("join.notOpen");
    if (error.status === 403 && error.code === "experiment_paused") return t("join.paused");
    if (error.status === 403 && error.code === "experiment_full") return t("join.full");
    if (error.code === "insecure_request") return t("join.insecure");
    if (error.status === 400 || error.status === 422) return t("join.idRefused", { reason: error.message });
    if (error.status === 429) return t("join.tooMany");
  }
  return t("join.failed");
}
