import { guardAdmin } from "#lib/admin/auth.ts";
import { loadExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { everyParticipant } from "#lib/admin/participants/participants.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const [experiment, groups, runs, simulated] = await Promise.all([
      loadExperiment(client, params.id),
      client.listGroups(params.id),
      client.listDryRuns(params.id),
      // Which of the reports' participants still exist, to link their trajectories.
      everyParticipant(client, params.id, { simulated: true }),
    ]);
    return { experiment, groups, runs, simulated };
  })) satisfies PageLoad;
