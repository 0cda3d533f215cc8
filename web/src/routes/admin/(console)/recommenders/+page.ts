import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { recommendersApi } from "#lib/api/recommenders.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:recommenders");
  const recommenders = await guardAdmin(url, () => recommendersApi.list(apiFor(fetch)));
  return { recommenders };
}) satisfies PageLoad;
