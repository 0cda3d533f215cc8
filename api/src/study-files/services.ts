import type { Logger } from "pino";
import { createLocalChangeBus } from "../changes/change-bus.ts";
import type { ServiceDeps } from "../deps.ts";
import { createExperimentsService } from "../experiments/experiments.service.ts";
import { createGroupsService } from "../groups/groups.service.ts";
import type { AddressPolicy } from "../recommenders/external-http/addresses.ts";
import { createRecommenderRegistry } from "../recommenders/registry.service.ts";
import { createSurveysService } from "../surveys/surveys.service.ts";
import { createTemplatesService } from "../ui/templates.service.ts";
import { createVideosService } from "../videos/videos.service.ts";

/**
 * The console's own services, bound to one database handle (a transaction, when applying): a study
 * file is applied through exactly the checks and refusals the console's requests meet. Their caches
 * stay local; whoever commits announces the change (a `resync`) to every process.
 */
export function studyServices(
  deps: ServiceDeps & { readonly log: Logger; readonly addressPolicy?: AddressPolicy },
) {
  const registry = createRecommenderRegistry({ ...deps, bus: createLocalChangeBus() });
  const templates = createTemplatesService(deps);
  return {
    experiments: createExperimentsService(deps),
    groups: createGroupsService({ ...deps, recommenders: registry, uiFits: templates.fits }),
    surveys: createSurveysService(deps),
    videos: createVideosService(deps),
    templates,
    registry,
  };
}

export type StudyServices = ReturnType<typeof studyServices>;
