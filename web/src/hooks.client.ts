import type { HandleClientError } from "@sveltejs/kit/hooks";
import { ApiError } from "#lib/api.ts";

/**
 * A load that fails with an unexpected API error shows the API's own message (the server never puts
 * internals in it) on the error page instead of SvelteKit's generic "Internal Error".
 */
export const handleError: HandleClientError = ({ kind, error }) => {
  if (kind !== "unknown") return;
  console.error(error);
  if (error instanceof ApiError) {
    return { status: error.status >= 400 ? error.status : 500, message: error.message, code: error.code };
  }
};
