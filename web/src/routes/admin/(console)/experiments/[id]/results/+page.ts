import { error } from "@sveltejs/kit";
import { guardAdmin } from "#lib/admin/auth.ts";
import { loadResults } from "#lib/admin/results/load.ts";
import { apiFor, isApiError } from "#lib/api.ts";
import type { PageLoad } from "./$types";

export const load = (async ({ fetch, params, url }) =>
  guardAdmin(url, async () => {
    const client = apiFor(fetch);
    const experiment = await client.getExperiment(params.id).catch((failure: unknown) => {
      if (isApiError(failure, 404) || isApiError(failure, 400) || isApiError(failure, 422)) {
        error(404, "Experiment not found");
      }
      throw failure;
    });
    return { experiment, results: await loadResults(client, params.id) };
  })) satisfies PageLoad;
