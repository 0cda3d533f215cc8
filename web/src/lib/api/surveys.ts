/** Surveys: the participant's pending survey, answers and dismissals; the console's survey records and downloads. */
import type { ParticipantApi } from "../participant-api.ts";
import type {
  AdminSurvey,
  PendingSurvey,
  ResponseInput,
  SurveyCreateInput,
  SurveyInput,
  SurveyResponse,
} from "../survey/types.ts";
import type { ApiClient } from "./client.ts";

/** The participant pages import these too: only types from the console's client, none of its code. */
const enc = encodeURIComponent;

export const surveysApi = {
  pending: (client: ParticipantApi, sessionId: string) =>
    client.request<PendingSurvey | null>("GET", "/api/v1/surveys/pending", {
      query: { session_id: sessionId },
    }),

  submit: (client: ParticipantApi, surveyId: string, body: ResponseInput) =>
    client.request<SurveyResponse>("POST", `/api/v1/surveys/${enc(surveyId)}/responses`, { body }),

  /** Records that the participant closed the survey without answering it. */
  dismiss: (
    client: ParticipantApi,
    surveyId: string,
    body: { session_id: string; about_session_id: string | null },
  ) => client.request<void>("POST", `/api/v1/surveys/${enc(surveyId)}/dismissals`, { body }),

  list: (client: ApiClient, experimentId: string) =>
    client.request<AdminSurvey[]>("GET", `/api/v1/admin/experiments/${enc(experimentId)}/surveys`),

  get: (client: ApiClient, id: string) =>
    client.request<AdminSurvey>("GET", `/api/v1/admin/surveys/${enc(id)}`),

  create: (client: ApiClient, experimentId: string, body: SurveyCreateInput) =>
    client.request<AdminSurvey>("POST", `/api/v1/admin/experiments/${enc(experimentId)}/surveys`, { body }),

  update: (client: ApiClient, id: string, body: SurveyInput) =>
    client.request<AdminSurvey>("PUT", `/api/v1/admin/surveys/${enc(id)}`, { body }),

  remove: (client: ApiClient, id: string) =>
    client.request<void>("DELETE", `/api/v1/admin/surveys/${enc(id)}`),

  setActive: (client: ApiClient, id: string, active: boolean) =>
    client.request<AdminSurvey>(
      "POST",
      `/api/v1/admin/surveys/${enc(id)}/${active ? "activate" : "deactivate"}`,
    ),

  /**
   * Where the browser downloads the survey's responses (a streamed CSV attachment): exact unless
   * `safe` asks for the spreadsheet-safe variant ("for Excel": text that a spreadsheet would run as a
   * formula gets a leading apostrophe; numbers never do).
   */
  csvUrl: (id: string, safe = false) =>
    `/api/v1/admin/surveys/${enc(id)}/responses/csv${safe ? "?spreadsheet_safe=true" : ""}`,

  /** When participants closed the survey without answering: who, which session, when. */
  dismissalsCsvUrl: (id: string, safe = false) =>
    `/api/v1/admin/surveys/${enc(id)}/dismissals.csv${safe ? "?spreadsheet_safe=true" : ""}`,

  /** The wide CSV: one row per response with the participant's arm, a column per question. */
  wideCsvUrl: (id: string, safe = false) =>
    `/api/v1/admin/surveys/${enc(id)}/responses/wide.csv${safe ? "?spreadsheet_safe=true" : ""}`,
};
