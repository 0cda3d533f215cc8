import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor, isApiError } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const events = await apiFor(fetch)
      .trajectory(params.user_id)
      .catch((failure: unknown) => {
        if (isApiError(failure, 404)) error(404, "Participant not found");
        throw failure;
      });
    return {
      userId: params.user_id,
      events,
      experimentId: url.searchParams.get("experiment"),
      loginId: url.searchParams.get("login") ?? events[0]?.login_id ?? null,
    };
  })) satisfies PageLoad;
