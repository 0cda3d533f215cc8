/** The deployment's settings as the console reads them. */
import type { AdminSettings, MediaSettings } from "../types.ts";
import type { ApiClient } from "./client.ts";

export const settingsApi = {
  /** The public URL study links are built from, and whether participants elsewhere can open it. */
  get: (client: ApiClient) => client.request<AdminSettings>("GET", "/api/v1/admin/settings"),

  /** The largest upload accepted, and where uploads are kept. */
  media: (client: ApiClient) => client.request<MediaSettings>("GET", "/api/v1/admin/media/settings"),
};
