/** Study files: the whole study as one document (api.md "Study definitions and packages"). */
import type { StudyApplied, StudyPlan, StudyRequest } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const studyFilesApi = {
  /** What applying the document would create, update, leave alone or refuse; changes nothing. */
  plan: (client: ApiClient, body: StudyRequest) =>
    client.request<StudyPlan>("POST", "/api/v1/admin/study-definitions/plan", { body }),

  /** Applies the document, all or nothing: into `experiment_id`, or as a new experiment. */
  apply: (client: ApiClient, body: StudyRequest) =>
    client.request<StudyApplied>("POST", "/api/v1/admin/study-definitions/apply", { body }),

  /** Where the browser downloads the experiment's study document (its definition). */
  definitionUrl: (experimentId: string, format: "yaml" | "json" = "yaml") =>
    `/api/v1/admin/experiments/${enc(experimentId)}/definition?format=${format}`,

  /** Where the browser downloads the experiment's package (definition and data), pseudonymized if asked. */
  packageUrl: (experimentId: string, pseudonymize: boolean) =>
    `/api/v1/admin/experiments/${enc(experimentId)}/package${pseudonymize ? "?pseudonymize=true" : ""}`,
};
