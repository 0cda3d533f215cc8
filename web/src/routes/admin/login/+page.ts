import { redirect } from "@sveltejs/kit";
import { safeNext } from "#lib/admin/auth.ts";
import { authApi } from "#lib/api/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { isApiError } from "#lib/participant-api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url }) => {
  const next = safeNext(url.searchParams.get("next"));
  // Already signed in: go straight on.
  const signedIn = await authApi
    .me(apiFor(fetch))
    .then(() => true)
    .catch((error: unknown) => {
      if (!isApiError(error, 401)) console.error("auth check failed", error);
      return false;
    });
  if (signedIn) redirect(307, next);
  return { next };
}) satisfies PageLoad;
