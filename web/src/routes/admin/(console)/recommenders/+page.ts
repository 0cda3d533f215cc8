import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:recommenders");
  const recommenders = await guardAdmin(url, () => apiFor(fetch).listRecommenders());
  return { recommenders };
}) satisfies PageLoad;
