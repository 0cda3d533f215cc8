/**
 * The console credential (api.md "Trust boundaries"): admin routes answer a browser only when the
 * request carries it, and only the console's own pages receive it: in the console page's
 * `<meta name="feedlab-console">` (a top-level load by a signed-in admin) and in the sign-in's answer.
 * It lives in this page's memory, never in storage another page of the origin could read.
 */
export const CONSOLE_HEADER = "X-Feedlab-Console";

let credential: string | null | undefined;

/** The credential of this page, or null (not signed in, or not a console page). */
export function consoleCredential(): string | null {
  if (credential === undefined) {
    const meta =
      typeof document === "undefined" ? null : document.querySelector('meta[name="feedlab-console"]');
    credential = meta?.getAttribute("content") || null;
  }
  return credential;
}

/** A sign-in gives a new credential; a sign-out takes it away. */
export function setConsoleCredential(value: string | null): void {
  credential = value;
}

/** `init` with the credential's header added, when this page has one. */
export function withConsoleCredential(init: RequestInit | undefined): RequestInit | undefined {
  const value = consoleCredential();
  if (value === null) return init;
  return {
    ...init,
    headers: { ...(init?.headers as Record<string, string> | undefined), [CONSOLE_HEADER]: value },
  };
}
