import { guardAdmin } from "#lib/admin/auth.ts";
import { loadExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { apiFor } from "#lib/api/client.ts";
import { SURVEY_KINDS, type SurveyKind } from "#lib/survey/types.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const experiment = await loadExperiment(apiFor(fetch), params.id);
    const asked = url.searchParams.get("kind");
    const kind: SurveyKind = SURVEY_KINDS.find((k) => k === asked) ?? "pre";
    return { experiment, kind };
  })) satisfies PageLoad;
