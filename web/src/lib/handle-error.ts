import { goto } from "$app/navigation";
import { loginHref } from "./admin/auth.ts";
import { notifications } from "./notifications.svelte.ts";
import { ApiError } from "./participant-api.ts";

/**
 * The one place a failed action is reported to the user. A 401 inside the admin console sends the
 * user to the sign-in page (and back here afterwards); anything else becomes an error toast of the form
 * "<what failed>: <why>". Returns the text shown so callers can also render it inline.
 */
export function handleError(error: unknown, whatFailed: string): string {
  if (error instanceof ApiError && error.status === 401 && isAdminConsolePath(window.location.pathname)) {
    void goto(loginHref(window.location.pathname + window.location.search));
    return "Your session has ended. Please sign in again.";
  }
  const reason =
    error instanceof ApiError || error instanceof Error ? error.message : "Something unexpected happened.";
  const message = `${whatFailed}: ${reason}`;
  console.error(whatFailed, error);
  notifications.error(message);
  return message;
}

function isAdminConsolePath(pathname: string): boolean {
  return pathname.startsWith("/admin") && !pathname.startsWith("/admin/login");
}
