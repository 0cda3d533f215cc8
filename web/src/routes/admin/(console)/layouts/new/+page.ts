import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { experimentsApi } from "#lib/api/experiments.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url }) => {
  const experiments = await guardAdmin(url, () => experimentsApi.list(apiFor(fetch)));
  const page = url.searchParams.get("page") === "watch" ? ("watch" as const) : ("feed" as const);
  const type = url.searchParams.get("type") === "blocks" ? ("blocks" as const) : ("code" as const);
  return { experiments, page, type };
}) satisfies PageLoad;
