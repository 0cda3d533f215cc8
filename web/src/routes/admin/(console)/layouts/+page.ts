import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { uiTemplatesApi } from "#lib/api/ui-templates.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:templates");
  const templates = await guardAdmin(url, () => uiTemplatesApi.list(apiFor(fetch)));
  return { templates };
}) satisfies PageLoad;
