import { guardAdmin } from "#lib/admin/auth.ts";
import { loadExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { loadResults } from "#lib/admin/results/load.ts";
import { apiFor } from "#lib/api/client.ts";
import { membersApi } from "#lib/api/members.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const experiment = await loadExperiment(client, params.id);
    const [results, members] = await Promise.all([
      loadResults(client, experiment),
      membersApi.list(client, params.id),
    ]);
    return { experiment, results, members };
  })) satisfies PageLoad;
