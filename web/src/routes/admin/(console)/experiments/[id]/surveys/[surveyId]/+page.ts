import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { experimentsApi } from "#lib/api/experiments.ts";
import { surveysApi } from "#lib/api/surveys.ts";
import { isApiError } from "#lib/participant-api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const notFound = (what: string) => (failure: unknown) => {
      if (isApiError(failure, 404) || isApiError(failure, 422)) error(404, `${what} not found`);
      throw failure;
    };
    const [experiment, survey] = await Promise.all([
      experimentsApi.get(client, params.id).catch(notFound("Experiment")),
      surveysApi.get(client, params.surveyId).catch(notFound("Survey")),
    ]);
    if (survey.experiment_id !== experiment.id) error(404, "Survey not found");
    return { experiment, survey };
  })) satisfies PageLoad;
