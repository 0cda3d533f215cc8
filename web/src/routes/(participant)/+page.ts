import { redirect } from "@sveltejs/kit";
import { apiFor, isApiError } from "#lib/api.ts";
import { loadLayout, UI_NONE } from "#lib/platform/presets/index.ts";
import { platformRuntime } from "#lib/platform/runtime.ts";
import { participantSession } from "#lib/session.svelte.ts";
import type { PageLoad } from "./$types";

/**
 * The feed page resolves the group's `ui_config.feed` (spec: UI resolution): `none` redirects to the
 * first recommended video; any other key loads its layout while the first feed page is fetched.
 */
export const load = (async ({ fetch }) => {
  const client = apiFor(fetch);
  let runtime: ReturnType<typeof platformRuntime>;
  try {
    const [me, sessionId] = await Promise.all([client.participantMe(), participantSession.ensure(client)]);
    runtime = platformRuntime(me, sessionId);
  } catch (error) {
    // No participant cookie (401), or an admin cookie instead of one (403): the visitor has not joined.
    if (isApiError(error, 401) || isApiError(error, 403)) return { kind: "no-study" as const };
    throw error;
  }
  const uiKey = runtime.session.uiConfig.feed;
  if (uiKey === UI_NONE) {
    // Reads the session's own events first, so a video just watched is not opened again.
    const first = await runtime.data.feed(0, 1);
    const video = first.items[0];
    if (video) redirect(307, `/watch/${video.id}`);
  } else {
    runtime.data.prefetchFeed();
  }
  const layout = await loadLayout(uiKey, "feed");
  return { kind: "feed" as const, sessionId: runtime.session.sessionId, runtime, layout };
}) satisfies PageLoad;
