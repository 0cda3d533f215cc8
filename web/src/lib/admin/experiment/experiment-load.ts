import { error } from "@sveltejs/kit";
import type { ApiClient } from "../../api/client.ts";
import { experimentsApi } from "../../api/experiments.ts";
import { isApiError } from "../../participant-api.ts";
import type { Experiment } from "../../types.ts";

/** An experiment for a console page's load, or SvelteKit's 404 page for an unknown or malformed id. */
export function loadExperiment(client: ApiClient, id: string): Promise<Experiment> {
  return experimentsApi.get(client, id).catch((failure: unknown) => {
    if (isApiError(failure, 404) || isApiError(failure, 400) || isApiError(failure, 422))
      error(404, "Experiment not found");
    throw failure;
  });
}
