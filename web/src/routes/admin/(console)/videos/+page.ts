import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api/client.ts";
import { videosApi } from "#lib/api/videos.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:videos");
  const videos = await guardAdmin(url, () => videosApi.list(apiFor(fetch)));
  return { videos };
}) satisfies PageLoad;
