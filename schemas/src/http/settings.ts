import { type Static, Type } from "@sinclair/typebox";

/** The server's settings the console needs (`GET /api/v1/admin/settings`). */
export const AdminSettings = Type.Object({
  public_url: Type.String({
    description:
      "The address participants open (FEEDLAB_PUBLIC_URL; by default http://HOST:PORT, with the port the server listens on). The console builds every study link from it.",
  }),
  public_url_reachable: Type.Boolean({
    description:
      "False when its host is a loopback, private, link-local or unspecified address, or a name without a dot: recruiting platforms and participants elsewhere cannot open it",
  }),
  public_url_problem: Type.Union([Type.String(), Type.Null()], {
    description: "Why it cannot be reached from elsewhere and what to set, for the console; null when it can",
  }),
  version: Type.String({
    description: "The Feedlab release this server runs (semantic version, CHANGELOG.md; `feedlab --version`)",
  }),
});
export type AdminSettings = Static<typeof AdminSettings>;
