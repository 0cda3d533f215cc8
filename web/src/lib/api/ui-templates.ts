/** Layouts (UI templates, code or blocks) and the bundled presets. */
import type { UiPreset, UiTemplate, UiTemplateCreate, UiTemplatePatch } from "../types.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (id: string) => `/api/v1/admin/ui-templates/${enc(id)}`;

export const uiTemplatesApi = {
  list: (client: ApiClient) => client.request<UiTemplate[]>("GET", "/api/v1/admin/ui-templates"),

  get: (client: ApiClient, id: string) => client.request<UiTemplate>("GET", path(id)),

  create: (client: ApiClient, body: UiTemplateCreate) =>
    client.request<UiTemplate>("POST", "/api/v1/admin/ui-templates", { body }),

  update: (client: ApiClient, id: string, body: UiTemplatePatch) =>
    client.request<UiTemplate>("PATCH", path(id), { body }),

  remove: (client: ApiClient, id: string) => client.request<void>("DELETE", path(id)),

  /** Where the browser downloads a blocks layout as TSX (an attachment). */
  exportUrl: (id: string) => `${path(id)}/export`,

  presets: (client: ApiClient) => client.request<UiPreset[]>("GET", "/api/v1/admin/ui-presets"),
};
