import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { experimentsApi } from "#lib/api/experiments.ts";
import { groupsApi } from "#lib/api/groups.ts";
import { participantsApi } from "#lib/api/participants.ts";
import { recommendersApi } from "#lib/api/recommenders.ts";
import { videosApi } from "#lib/api/videos.ts";
import { isApiError } from "#lib/participant-api.ts";
import type { PageLoad } from "./$types";

/** A lookup that may fail without failing the page: the timeline shows ids where names are missing. */
const orNull = <T>(promise: Promise<T>): Promise<T | null> => promise.catch(() => null);

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const events = await participantsApi.trajectory(client, params.user_id).catch((failure: unknown) => {
      if (isApiError(failure, 404)) error(404, "Participant not found");
      throw failure;
    });
    const experimentId = url.searchParams.get("experiment") ?? events[0]?.experiment_id ?? null;
    const armId = events.at(-1)?.group_id ?? null;
    // Names to show beside the ids the events carry: the experiment, the arm, recommenders, videos.
    const [experiment, arms, recommenders, videos, quality, participant] = await Promise.all([
      experimentId ? orNull(experimentsApi.get(client, experimentId)) : null,
      experimentId ? orNull(groupsApi.list(client, experimentId)) : null,
      events.length > 0 ? orNull(recommendersApi.list(client)) : null,
      events.some((e) => e.video_id) ? orNull(videosApi.list(client)) : null,
      orNull(participantsApi.participantQuality(client, params.user_id)),
      orNull(participantsApi.get(client, params.user_id)),
    ]);
    return {
      userId: params.user_id,
      events,
      experimentId,
      experimentName: experiment?.name ?? null,
      armName: (armId && arms?.find((a) => a.id === armId)?.name) || null,
      recommenderLabels: Object.fromEntries((recommenders ?? []).map((r) => [r.key, r.label])),
      videoTitles: Object.fromEntries((videos ?? []).map((v) => [v.external_id, v.title])),
      loginId: url.searchParams.get("login") ?? events[0]?.login_id ?? null,
      /** Their sessions as the list, the CSV and completion count them (every one registered). */
      sessions: participant?.sessions ?? null,
      /** The participant's quality measures and flags (docs/quality.md), null when unknown. */
      quality,
    };
  })) satisfies PageLoad;
