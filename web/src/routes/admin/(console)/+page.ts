import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:experiments");
  const experiments = await guardAdmin(url, () => apiFor(fetch).listExperiments());
  // Newest first.
  experiments.sort((a, b) => b.created_at.localeCompare(a.created_at));
  return { experiments };
}) satisfies PageLoad;
