import { AUDIT_PAGE } from "#lib/admin/audit/audit.ts";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url }) => {
  const entries = await guardAdmin(url, () => apiFor(fetch).audit({ limit: AUDIT_PAGE }));
  return { entries };
}) satisfies PageLoad;
