import { guardAdmin } from "#lib/admin/auth.ts";
import { adminsApi } from "#lib/api/admins.ts";
import { apiFor } from "#lib/api/client.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:admins");
  const admins = await guardAdmin(url, () => adminsApi.list(apiFor(fetch)));
  return { admins };
}) satisfies PageLoad;
