import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, params }) => {
  const client = apiFor(fetch);
  const [template, experiments] = await guardAdmin(url, () =>
    Promise.all([client.getUiTemplate(params.id), client.listExperiments()]),
  );
  return { template, experiments };
}) satisfies PageLoad;
