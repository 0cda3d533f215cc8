import { guardAdmin } from "#lib/admin/auth.ts";
import { loadExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { PARTICIPANTS_PAGE_SIZE } from "#lib/admin/participants/participants.ts";
import { apiFor } from "#lib/api.ts";
import { surveyApi } from "#lib/survey/survey-api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const [
      experiment,
      groups,
      recommenders,
      presets,
      templates,
      pool,
      videos,
      participants,
      surveys,
      runs,
      monitor,
    ] = await Promise.all([
      loadExperiment(client, params.id),
      client.listGroups(params.id),
      client.listRecommenders(),
      client.listUiPresets(),
      client.listUiTemplates(),
      client.getPool(params.id),
      client.listVideos(),
      // Real participants: the dry runs' simulated ones are listed only when the researcher asks.
      client.listParticipants(params.id, { limit: PARTICIPANTS_PAGE_SIZE, simulated: false }),
      surveyApi.list(client, params.id),
      client.listModelRuns(params.id),
      // Warnings about arms whose recommender fails; the page works without them.
      client.monitor(params.id).catch(() => null),
    ]);
    return {
      experiment,
      groups,
      recommenders,
      presets,
      templates,
      pool,
      videos,
      participants,
      surveys,
      runs,
      monitor,
    };
  })) satisfies PageLoad;
