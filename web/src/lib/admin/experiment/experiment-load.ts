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

/**
 * An experiment (`loadExperiment`) and the page's other reads of it, made at once; the experiment's own
 * failure decides the page's error, whichever read fails first: for a researcher who is not a member
 * every read answers 404, and the page is "Experiment not found" rather than another read's message.
 */
export async function loadWithExperiment<T>(
  client: ApiClient,
  id: string,
  others: Promise<T>,
): Promise<[Experiment, T]> {
  const reading = loadExperiment(client, id);
  // Awaited below, once the experiment is read: not an unhandled rejection meanwhile.
  others.catch(() => undefined);
  return [await reading, await others];
}
