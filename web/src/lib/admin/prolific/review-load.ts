import type { ProlificSubmission } from "@feedlab/schemas/http/prolific.ts";
import type { ApiClient } from "../../api/client.ts";
import { prolificApi } from "../../api/prolific.ts";
import { isApiError } from "../../participant-api.ts";
import { type Problem, problemOf } from "./prolific.ts";

/**
 * The linked study's submissions for the review page, or what keeps Feedlab from reading them (no
 * token on the server, Prolific down or refusing) as a problem the page shows in place of the table.
 * A 401 is thrown, for the console's sign-in redirect.
 */
export async function loadSubmissions(
  client: ApiClient,
  experimentId: string,
): Promise<{ items: ProlificSubmission[]; problem: null } | { items: null; problem: Problem }> {
  try {
    return { items: (await prolificApi.submissions(client, experimentId)).items, problem: null };
  } catch (error) {
    if (isApiError(error, 401)) throw error;
    return { items: null, problem: problemOf(error, "Could not read the submissions from Prolific") };
  }
}
