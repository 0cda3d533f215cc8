import { AdminSettings } from "@feedlab/schemas/http/settings.ts";
import type { Config } from "../config.ts";
import { VERSION } from "../db/release.ts";
import { route } from "../http/route.ts";
import { effectivePublicUrl, publicUrlReachability } from "./public-url.ts";

/** The server's settings the console builds on (api.md "Console and exports"). */
export function settingsRoutes({ config }: { config: Pick<Config, "publicUrl" | "publicUrlSet" | "port"> }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/settings",
      tag: "settings",
      summary: "The public URL study links are built from, and whether others can open it",
      description:
        "`public_url` is FEEDLAB_PUBLIC_URL, or by default http://HOST:PORT with the port the server answers on. `public_url_reachable` is false for a loopback, private, link-local or unspecified address and for a name without a dot; `public_url_problem` then says why and what to set. `version`: the release this server runs.",
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Settings", schema: AdminSettings } },
      handler: (ctx) => {
        // Without FEEDLAB_PUBLIC_URL, the port is the one this request reached (PORT=0 picks it at listen).
        const publicUrl = effectivePublicUrl(config, ctx.req.socket.localPort ?? config.port);
        const { reachable, problem } = publicUrlReachability(publicUrl);
        ctx.body = {
          public_url: publicUrl,
          public_url_reachable: reachable,
          public_url_problem: problem,
          version: VERSION,
        } satisfies AdminSettings;
      },
    }),
  ];
}
