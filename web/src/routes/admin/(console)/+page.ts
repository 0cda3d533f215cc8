import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { experimentsApi } from "#lib/api/experiments.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:experiments");
  const experiments = await guardAdmin(url, () => experimentsApi.list(apiFor(fetch)));
  // Newest first.
  experiments.sort((a, b) => b.created_at.localeCompare(a.created_at));
  return { experiments };
}) satisfies PageLoad;
