import { redirect } from "@sveltejs/kit";
import { ApiError } from "../participant-api.ts";

/** The sign-in page, set to come back to `next` afterwards. */
export function loginHref(next: string): string {
  return `/admin/login?next=${encodeURIComponent(next)}`;
}

/**
 * Where to go after signing in: the `next` query value when it is a path of this site, else `/admin`.
 * Refusing absolute and protocol-relative URLs keeps the login page from being an open redirect.
 */
export function safeNext(next: string | null): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/admin";
  return next;
}

/** In an admin `load`: turns a 401 from the API into a redirect to the sign-in page. */
function redirectIfUnauthorized(error: unknown, url: URL): void {
  if (error instanceof ApiError && error.status === 401) {
    redirect(307, loginHref(url.pathname + url.search));
  }
}

/** Runs an admin `load` body, sending a signed-out user to the sign-in page instead of an error page. */
export async function guardAdmin<T>(url: URL, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    redirectIfUnauthorized(error, url);
    throw error;
  }
}
