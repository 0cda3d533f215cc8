import type { ExperimentsService } from "../experiments/experiments.service.ts";
import type { GroupsService } from "../groups/groups.service.ts";
import type { RecommenderRegistry } from "../recommenders/registry.service.ts";
import type { SurveysService } from "../surveys/surveys.service.ts";
import type { TemplatesService } from "../ui/templates.service.ts";
import type { VideosService } from "../videos/videos.service.ts";

/**
 * The console's own services, bound to one database handle (a transaction, when applying): a study
 * file is exported and applied through exactly the checks and refusals the console's requests meet.
 * The composition root builds them (`api/src/app/study-services.ts`), with the process's clock and ids.
 */
export interface StudyServices {
  readonly experiments: ExperimentsService;
  readonly groups: GroupsService;
  readonly surveys: SurveysService;
  readonly videos: VideosService;
  readonly templates: TemplatesService;
  readonly registry: RecommenderRegistry;
}
