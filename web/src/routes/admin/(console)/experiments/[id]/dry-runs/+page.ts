import { guardAdmin } from "#lib/admin/auth.ts";
import { loadWithExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { everyParticipant } from "#lib/admin/participants/participants.ts";
import { apiFor } from "#lib/api/client.ts";
import { dryRunsApi } from "#lib/api/dry-runs.ts";
import { groupsApi } from "#lib/api/groups.ts";
import { membersApi } from "#lib/api/members.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const [experiment, [groups, runs, simulated, members]] = await loadWithExperiment(
      client,
      params.id,
      Promise.all([
        groupsApi.list(client, params.id),
        dryRunsApi.list(client, params.id),
        // Which of the reports' participants still exist, to link their trajectories.
        everyParticipant(client, params.id, { simulated: true }),
        membersApi.list(client, params.id),
      ]),
    );
    return { experiment, groups, runs, simulated, members };
  })) satisfies PageLoad;
