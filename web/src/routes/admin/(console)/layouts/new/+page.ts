import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url }) => {
  const experiments = await guardAdmin(url, () => apiFor(fetch).listExperiments());
  const page = url.searchParams.get("page") === "watch" ? ("watch" as const) : ("feed" as const);
  const type = url.searchParams.get("type") === "blocks" ? ("blocks" as const) : ("code" as const);
  return { experiments, page, type };
}) satisfies PageLoad;
