import { AUDIT_PAGE } from "#lib/admin/audit/audit.ts";
import { guardAdmin } from "#lib/admin/auth.ts";
import { auditApi } from "#lib/api/audit.ts";
import { apiFor } from "#lib/api/client.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url }) => {
  const entries = await guardAdmin(url, () => auditApi.list(apiFor(fetch), { limit: AUDIT_PAGE }));
  return { entries };
}) satisfies PageLoad;
