import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:admins");
  const admins = await guardAdmin(url, () => apiFor(fetch).listAdmins());
  return { admins };
}) satisfies PageLoad;
