import { guardAdmin } from "#lib/admin/auth.ts";
import { loadExperiment } from "#lib/admin/experiment/experiment-load.ts";
import { loadSubmissions } from "#lib/admin/prolific/review-load.ts";
import { apiFor } from "#lib/api/client.ts";
import { membersApi } from "#lib/api/members.ts";
import { prolificApi } from "#lib/api/prolific.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const experiment = await loadExperiment(client, params.id);
    const [members, submissions, plans] = await Promise.all([
      membersApi.list(client, params.id),
      experiment.prolific ? loadSubmissions(client, params.id) : null,
      prolificApi.bonuses(client, params.id).then((r) => r.items),
    ]);
    return { experiment, members, submissions, plans };
  })) satisfies PageLoad;
