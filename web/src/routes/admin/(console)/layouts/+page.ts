import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:templates");
  const templates = await guardAdmin(url, () => apiFor(fetch).listUiTemplates());
  return { templates };
}) satisfies PageLoad;
