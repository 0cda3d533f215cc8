import { UI_DEVICES, UI_NONE, UI_STYLES, UiPreset } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";

/** The six bundled presets: two neutral style families in three device variants, keyed `<style>-<device>`. */
const UI_PRESETS: readonly UiPreset[] = UI_STYLES.flatMap((style) =>
  UI_DEVICES.map((device) => ({ key: `${style}-${device}`, style, device })),
);

export function isKnownUiKey(key: string): boolean {
  return key === UI_NONE || UI_PRESETS.some((p) => p.key === key);
}

export function uiPresetRoutes() {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/ui-presets",
      tag: "ui",
      summary: "The six bundled UI presets",
      description: "`none` is accepted wherever a UI key is, besides these keys.",
      access: "admin",
      role: "researcher",
      responses: {
        200: {
          description: "Presets",
          schema: Type.Array(UiPreset),
        },
      },
      handler: (ctx) => {
        ctx.body = UI_PRESETS;
      },
    }),
  ];
}
