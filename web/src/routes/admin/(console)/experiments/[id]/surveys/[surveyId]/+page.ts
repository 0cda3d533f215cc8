import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor, isApiError } from "#lib/api.ts";
import { surveyApi } from "#lib/survey/survey-api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const notFound = (what: string) => (failure: unknown) => {
      if (isApiError(failure, 404) || isApiError(failure, 422)) error(404, `${what} not found`);
      throw failure;
    };
    const [experiment, survey] = await Promise.all([
      client.getExperiment(params.id).catch(notFound("Experiment")),
      surveyApi.get(client, params.surveyId).catch(notFound("Survey")),
    ]);
    if (survey.experiment_id !== experiment.id) error(404, "Survey not found");
    return { experiment, survey };
  })) satisfies PageLoad;
