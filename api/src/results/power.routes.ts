import { ErrorBody, IdParams, PowerQuery, PowerResult } from "@feedlab/schemas";
import { route } from "../http/route.ts";
import type { PowerService } from "./power.service.ts";

/** api.md "Data quality and validity": `GET .../power`, how many participants an arm needs. */
export function powerRoutes({ power }: { power: PowerService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/power",
      tag: "results",
      summary: "Power analysis: participants per arm to detect a difference in a rate, and the power now",
      description:
        "Two arms, a two-sided test of an absolute difference `effect` in ctr, completion_rate or like_rate (as /stats computes them). With `baseline` and `icc` (method `assumed`): n per arm = ceil((z_{1-alpha/2} + z_power)² (p1 q1 + p2 q2) / effect² · DE / M), DE = 1 + (M - 1) icc, p2 = baseline + effect, M = impressions_per_participant (default 50 impressions for ctr, 10 plays for the others). Without them (method `resampling`): the experiment's real analysed participants (simulated and excluded ones left out, as /stats) are a pooled pilot; baseline is its pooled rate, icc its ANOVA estimate, M its mean denominator; for a size n, 1,000 seeded resampled studies draw two arms of n participants with replacement, add the effect to one arm by binomial augmentation of each participant's numerator, and run /stats's clustered estimator (delta-method difference of two clustered ratios), counting rejections at alpha; the smallest n reaching `power` is searched from the closed form's guess (within 1%; at most 20,000 per arm, else null). 422 `not_enough_data` when an arm has fewer than 2 participants with data: give baseline and icc. `power_now`: the power at the smallest arm's current real participants (null with none). `curve`: the closed form with the answer's baseline, effect, M and design effect (with the pilot's unequal sizes: 1 + ((1 + CV²) M - 1) icc), for the plot; `simulated`: the sizes resampling simulated. Same seed, same answer. docs/power.md.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: PowerQuery,
      responses: {
        200: { description: "Participants per arm needed and the power now", schema: PowerResult },
        404: { description: "Unknown experiment", schema: ErrorBody },
        422: { description: "A bad parameter (named), or not_enough_data to resample", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        ctx.body = await power.forExperiment(params.id, query);
      },
    }),
  ];
}
