import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { experimentsApi } from "#lib/api/experiments.ts";
import { uiTemplatesApi } from "#lib/api/ui-templates.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, params }) => {
  const client = apiFor(fetch);
  const [template, experiments] = await guardAdmin(url, () =>
    Promise.all([uiTemplatesApi.get(client, params.id), experimentsApi.list(client)]),
  );
  return { template, experiments };
}) satisfies PageLoad;
