import { guardAdmin } from "#lib/admin/auth.ts";
import { adminsApi } from "#lib/api/admins.ts";
import { apiFor } from "#lib/api/client.ts";
import type { PageLoad } from "./$types";

/** Account owners get the accounts; a researcher's page holds their own password only. */
export const load = (async ({ fetch, url, depends, parent }) => {
  depends("feedlab:admins");
  const { user } = await parent();
  const admins = user.role === "owner" ? await guardAdmin(url, () => adminsApi.list(apiFor(fetch))) : null;
  return { admins };
}) satisfies PageLoad;
