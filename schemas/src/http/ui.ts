import { type Static, Type } from "@sinclair/typebox";
import { BLOCK_TYPES } from "../ui/blocks/catalog.ts";
import { Nullable, Timestamp, Uuid } from "./common.ts";
import { UI_DEVICES, UI_STYLES } from "./enums.ts";

/** A bundled UI preset (api.md: `GET /api/v1/admin/ui-presets`), keyed `<style>-<device>`. */
export const UiPreset = Type.Object({
  key: Type.String(),
  style: Type.Unsafe<(typeof UI_STYLES)[number]>({ type: "string", enum: [...UI_STYLES] }),
  device: Type.Unsafe<(typeof UI_DEVICES)[number]>({ type: "string", enum: [...UI_DEVICES] }),
});
export type UiPreset = Static<typeof UiPreset>;

/** The largest template source accepted, in characters (about 5,000 lines of TSX). */
export const MAX_TEMPLATE_SOURCE_CHARS = 200_000;

export const TemplatePage = Type.Unsafe<"feed" | "watch">({
  type: "string",
  enum: ["feed", "watch"],
  description: "The page the template lays out; a group may use it only for that page",
});
export const TemplateType = Type.Unsafe<"code" | "blocks">({
  type: "string",
  enum: ["code", "blocks"],
  description: `code: a TSX module; blocks: a tree of the ${BLOCK_TYPES.length} blocks`,
});
const TemplateName = Type.String({ minLength: 1, maxLength: 255, pattern: "^[^\\u0000]*$" });
export const TemplateSource = Type.String({
  maxLength: MAX_TEMPLATE_SOURCE_CHARS,
  pattern: "^[^\\u0000]*$",
  description: `code: a TSX module whose default export is the page; imports only from @feedlab/data, @feedlab/surfaces, @feedlab/blocks, react and react/jsx-runtime. At most ${MAX_TEMPLATE_SOURCE_CHARS} characters.`,
});
export const TemplateTree = Type.Record(Type.String(), Type.Unknown(), {
  description: "blocks: the root node {type, props?, children?}",
});

export const UiTemplateCreate = Type.Object(
  {
    name: TemplateName,
    page: TemplatePage,
    template_type: TemplateType,
    source: Type.Optional(TemplateSource),
    tree: Type.Optional(TemplateTree),
  },
  { additionalProperties: false },
);
export type UiTemplateCreate = Static<typeof UiTemplateCreate>;

export const UiTemplatePatch = Type.Object(
  {
    name: Type.Optional(TemplateName),
    page: Type.Optional(TemplatePage),
    template_type: Type.Optional(TemplateType),
    source: Type.Optional(TemplateSource),
    tree: Type.Optional(TemplateTree),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UiTemplatePatch = Static<typeof UiTemplatePatch>;

/** A participant layout a researcher authored (api.md, UI templates). */
export const UiTemplate = Type.Object({
  id: Uuid,
  name: Type.String(),
  page: TemplatePage,
  template_type: TemplateType,
  source: Nullable(Type.String()),
  tree: Nullable(TemplateTree),
  version: Type.Integer({ description: "1 on create, +1 on each change of source or tree" }),
  used_by: Type.Array(
    Type.Object({
      group_id: Uuid,
      group_name: Type.String(),
      experiment_id: Uuid,
      experiment_name: Type.String(),
    }),
    {
      description:
        "Groups whose ui_config names this template (it cannot be deleted while any does), in experiments the account may see",
    },
  ),
  used_elsewhere: Type.Integer({
    minimum: 0,
    description: "How many groups of experiments the account is not a member of name this template",
  }),
  last_render_error: Nullable(
    Type.Object(
      { at: Timestamp, message: Type.String(), version: Type.Integer() },
      { description: "The last error a participant's browser reported while rendering it" },
    ),
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type UiTemplate = Static<typeof UiTemplate>;

/** What a participant's browser needs to render a template (`GET /api/v1/ui-templates/{id}`). */
export const ParticipantUiTemplate = Type.Object({
  id: Uuid,
  page: TemplatePage,
  template_type: TemplateType,
  version: Type.Integer(),
  module_url: Nullable(Type.String({ description: "code: the compiled ES module to import" })),
  platform_modules: Type.Array(Type.String(), {
    description: "The platform modules the compiled module imports (the runtime loads only those)",
  }),
  tree: Nullable(TemplateTree),
});
export type ParticipantUiTemplate = Static<typeof ParticipantUiTemplate>;
