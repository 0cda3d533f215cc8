import { guardAdmin } from "#lib/admin/auth.ts";
import { authApi } from "#lib/api/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import type { LayoutLoad } from "./$types";

/** Every console page checks the admin session; a 401 goes to `/admin/login?next=<this page>`. */
export const load = (async ({ fetch, url }) => {
  const user = await guardAdmin(url, () => authApi.me(apiFor(fetch)));
  return { user };
}) satisfies LayoutLoad;
