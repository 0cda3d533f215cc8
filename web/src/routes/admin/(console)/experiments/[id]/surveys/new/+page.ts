import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor, isApiError } from "#lib/api.ts";
import { SURVEY_KINDS, type SurveyKind } from "#lib/survey/types.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const experiment = await apiFor(fetch)
      .getExperiment(params.id)
      .catch((failure: unknown) => {
        if (isApiError(failure, 404) || isApiError(failure, 422)) error(404, "Experiment not found");
        throw failure;
      });
    const asked = url.searchParams.get("kind");
    const kind: SurveyKind = SURVEY_KINDS.find((k) => k === asked) ?? "pre";
    return { experiment, kind };
  })) satisfies PageLoad;
