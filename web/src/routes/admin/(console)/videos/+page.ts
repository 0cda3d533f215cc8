import { guardAdmin } from "#lib/admin/auth.ts";
import { apiFor } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, url, depends }) => {
  depends("feedlab:videos");
  const videos = await guardAdmin(url, () => apiFor(fetch).listVideos());
  return { videos };
}) satisfies PageLoad;
