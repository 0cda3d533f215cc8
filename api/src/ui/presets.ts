import { Type } from "@sinclair/typebox";
import { route } from "../http/route.ts";

export const UI_STYLES = ["grid", "list"] as const;
export const UI_DEVICES = ["desktop", "tablet", "mobile"] as const;

export interface UiPreset {
  readonly key: string;
  readonly style: (typeof UI_STYLES)[number];
  readonly device: (typeof UI_DEVICES)[number];
}

/** The six bundled presets: two neutral style families in three device variants, keyed `<style>-<device>`. */
export const UI_PRESETS: readonly UiPreset[] = UI_STYLES.flatMap((style) =>
  UI_DEVICES.map((device) => ({ key: `${style}-${device}`, style, device })),
);

/** The special UI key: on the feed it bypasses the feed and opens the first watch video. */
export const UI_NONE = "none";

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
      responses: {
        200: {
          description: "Presets",
          schema: Type.Array(
            Type.Object({ key: Type.String(), style: Type.String(), device: Type.String() }),
          ),
        },
      },
      handler: (ctx) => {
        ctx.body = UI_PRESETS;
      },
    }),
  ];
}
