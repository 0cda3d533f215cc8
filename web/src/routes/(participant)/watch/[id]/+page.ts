import { error } from "@sveltejs/kit";
import { apiFor, isApiError } from "#lib/api.ts";
import { loadLayout } from "#lib/platform/presets/index.ts";
import { platformRuntime } from "#lib/platform/runtime.ts";
import { preloadPlayer } from "#lib/platform/surfaces/players/index.ts";
import { participantSession } from "#lib/session.svelte.ts";
import type { PageLoad } from "./$types";

/**
 * The watch page resolves the group's `ui_config.watch` and loads that layout while the video and the
 * first related page are fetched.
 */
export const load = (async ({ fetch, params }) => {
  const client = apiFor(fetch);
  let runtime: ReturnType<typeof platformRuntime>;
  try {
    const [me, sessionId] = await Promise.all([client.participantMe(), participantSession.ensure(client)]);
    runtime = platformRuntime(me, sessionId);
  } catch (failure) {
    if (isApiError(failure, 401) || isApiError(failure, 403)) return { kind: "no-study" as const };
    throw failure;
  }
  runtime.data.prefetchRelated(params.id);
  const [video, layout] = await Promise.all([
    runtime.data.video(params.id).then(
      (found) => {
        preloadPlayer(found);
        return found;
      },
      (failure: unknown) => {
        // The participant view answers 404 for anything outside the experiment's pool, and a malformed id
        // may be refused as bad input: both mean there is no such video here.
        if (isApiError(failure, 404) || isApiError(failure, 400) || isApiError(failure, 422)) {
          error(404, "Video not found");
        }
        throw failure;
      },
    ),
    loadLayout(runtime.session.uiConfig.watch, "watch"),
  ]);
  return { kind: "watch" as const, sessionId: runtime.session.sessionId, runtime, layout, video };
}) satisfies PageLoad;
