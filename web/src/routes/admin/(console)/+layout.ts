import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { LayoutLoad } from "./$types";

/** Every console page checks the admin session; a 401 goes to `/admin/login?next=<this page>`. */
export const load = (async ({ fetch, url }) => {
  const user = await guardAdmin(url, () => apiFor(fetch).adminMe());
  return { user };
}) satisfies LayoutLoad;
