import type { Db } from "@feedlab/sql";
import type { Logger } from "pino";
import { createLocalChangeBus } from "../changes/change-bus.ts";
import type { ServiceDeps } from "../deps.ts";
import { createExperimentsService } from "../experiments/experiments.service.ts";
import { createGroupsService } from "../groups/groups.service.ts";
import type { AddressPolicy } from "../recommenders/external-http/addresses.ts";
import { createRecommenderRegistry } from "../recommenders/registry.service.ts";
import type { StudyServices } from "../study-files/services.ts";
import { createSurveysService } from "../surveys/surveys.service.ts";
import { createTemplatesService } from "../ui/templates.service.ts";
import { createVideosService } from "../videos/videos.service.ts";

/**
 * The console's services as study files use them, on the database handle given (a transaction, when
 * applying), with the process's clock and ids. Their caches stay local to the handle; whoever commits
 * announces the change (a `resync`) to every process.
 */
export function studyServicesOn(
  deps: ServiceDeps & { readonly log: Logger; readonly addressPolicy?: AddressPolicy },
): (db: Db) => StudyServices {
  return (db) => {
    const bound = { ...deps, db };
    const registry = createRecommenderRegistry({ ...bound, bus: createLocalChangeBus() });
    const templates = createTemplatesService(bound);
    return {
      experiments: createExperimentsService(bound),
      groups: createGroupsService({ ...bound, recommenders: registry, uiFits: templates.fits }),
      surveys: createSurveysService(bound),
      videos: createVideosService(bound),
      templates,
      registry,
    };
  };
}
