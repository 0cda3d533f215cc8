/** The video library, and an experiment's pool of it. File uploads are `uploads.ts`. */
import type { NewVideo, Video, VideoList, VideoPatch, VideoPool, VideoUsage } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

export const videosApi = {
  list: (client: ApiClient) => client.request<Video[]>("GET", "/api/v1/admin/videos"),

  async create(client: ApiClient, videos: NewVideo[]): Promise<Video[]> {
    const created = await client.request<VideoList>("POST", "/api/v1/admin/videos", { body: { videos } });
    return created.videos;
  },

  /** Changes the fields given (any but the external id). */
  update: (client: ApiClient, id: string, patch: VideoPatch) =>
    client.request<Video>("PATCH", `/api/v1/admin/videos/${enc(id)}`, { body: patch }),

  remove: (client: ApiClient, id: string) =>
    client.request<void>("DELETE", `/api/v1/admin/videos/${enc(id)}`),

  /** The experiments whose pool holds the video. */
  usage: (client: ApiClient, id: string) =>
    client.request<VideoUsage>("GET", `/api/v1/admin/videos/${enc(id)}/usage`),

  pool: (client: ApiClient, experimentId: string) =>
    client.request<VideoPool>("GET", `/api/v1/admin/experiments/${enc(experimentId)}/videos`),

  setPool: (client: ApiClient, experimentId: string, videoIds: string[]) =>
    client.request<VideoPool>("PUT", `/api/v1/admin/experiments/${enc(experimentId)}/videos`, {
      body: { video_ids: videoIds },
    }),
};
