import { Balance, ErrorBody, IdParams } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { route } from "../http/route.ts";
import { experimentBalance } from "./assignment/balance.ts";

/** How assignment stands (api.md "Assignment (wave 4)"). */
export function balanceRoutes({ db, now }: { db: Db; now: () => Date }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/balance",
      tag: "participants",
      summary: "Assignment's balance: each arm's count, cap, state and chance now; each covariate per arm",
      description:
        "Real participants only, counted as the experiment's `assignment.counts` (and `stale_minutes`) count them. `probability_now`: the chance the next newcomer goes to the arm (0 for a full or paused arm; null under minimisation, where it depends on the newcomer). Per covariate (recruiting parameters; docs/assignment.md): per arm, `n`, the `shares` of each value (`(none)` for participants without one) and, when every value is a number, the `mean`; `smd_max` is the largest standardised mean difference between two arms (below 0.1 is usually called balanced), null with fewer than two arms with participants.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: { description: "Assignment's balance", schema: Balance },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        ctx.body = await experimentBalance(db, params.id, now());
      },
    }),
  ];
}
