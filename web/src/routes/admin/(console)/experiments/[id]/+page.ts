import { guardAdmin } from "#lib/admin/auth.ts";
import { loadWithExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { PARTICIPANTS_PAGE_SIZE } from "#lib/admin/participants/participants.ts";
import { apiFor } from "#lib/api/client.ts";
import { groupsApi } from "#lib/api/groups.ts";
import { membersApi } from "#lib/api/members.ts";
import { modelRunsApi } from "#lib/api/model-runs.ts";
import { participantsApi } from "#lib/api/participants.ts";
import { recommendersApi } from "#lib/api/recommenders.ts";
import { resultsApi } from "#lib/api/results.ts";
import { surveysApi } from "#lib/api/surveys.ts";
import { uiTemplatesApi } from "#lib/api/ui-templates.ts";
import { videosApi } from "#lib/api/videos.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const [
      experiment,
      [groups, recommenders, presets, templates, pool, videos, participants, surveys, runs, monitor, members],
    ] = await loadWithExperiment(
      client,
      params.id,
      Promise.all([
        groupsApi.list(client, params.id),
        recommendersApi.list(client),
        uiTemplatesApi.presets(client),
        uiTemplatesApi.list(client),
        videosApi.pool(client, params.id),
        videosApi.list(client),
        // Real participants: the dry runs' simulated ones are listed only when the researcher asks.
        participantsApi.list(client, params.id, { limit: PARTICIPANTS_PAGE_SIZE, simulated: false }),
        surveysApi.list(client, params.id),
        modelRunsApi.list(client, params.id),
        // Warnings about arms whose recommender fails; the page works without them.
        resultsApi.monitor(client, params.id).catch(() => null),
        membersApi.list(client, params.id),
      ]),
    );
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
      members,
    };
  })) satisfies PageLoad;
