/** Prolific (api.md "Prolific (wave 4)"): the linked study's submissions, review, bonuses and groups. */
import type {
  BonusesBody,
  BonusPlan,
  GroupsBody,
  GroupsResult,
  ProlificCall,
  ProlificSubmissions,
  ReviewBody,
  ReviewResults,
} from "@feedlab/schemas/http/prolific.ts";
import { type ApiClient, enc } from "./client.ts";

const path = (experimentId: string) => `/api/v1/admin/experiments/${enc(experimentId)}/prolific`;
/** `?dry_run=true`: the server answers the calls it would send to Prolific and sends none. */
const dry = (dryRun: boolean) => (dryRun ? { dry_run: "true" } : undefined);

/** A new plan (201), or with a dry run its size and the call it would send. */
export type BonusSetUp =
  | { id: string; count: number; total: number; status: "created"; plan: BonusPlan }
  | { count: number; total: number; calls: ProlificCall[] };

export const prolificApi = {
  /** Read from Prolific at each call, beside each participant's flags, exclusions and approval on finish. */
  submissions: (client: ApiClient, experimentId: string) =>
    client.request<ProlificSubmissions>("GET", `${path(experimentId)}/submissions`),

  /** Approve, reject or ask to return: one result per decision (Prolific accepted it, or why not). */
  review: (client: ApiClient, experimentId: string, body: ReviewBody, dryRun = false) =>
    client.request<ReviewResults>("POST", `${path(experimentId)}/review`, { body, query: dry(dryRun) }),

  /** The experiment's bonus plans, newest first. */
  bonuses: (client: ApiClient, experimentId: string) =>
    client.request<{ items: BonusPlan[] }>("GET", `${path(experimentId)}/bonuses`),

  /** Sets a plan up on Prolific, not paid. */
  createBonuses: (client: ApiClient, experimentId: string, body: BonusesBody, dryRun = false) =>
    client.request<BonusSetUp>("POST", `${path(experimentId)}/bonuses`, { body, query: dry(dryRun) }),

  /** Pays a plan, once (409 already_paid after that). */
  pay: (client: ApiClient, experimentId: string, bonusId: string, dryRun = false) =>
    client.request<{ plan: BonusPlan; calls?: ProlificCall[] }>(
      "POST",
      `${path(experimentId)}/bonuses/${enc(bonusId)}/pay`,
      { body: {}, query: dry(dryRun) },
    ),

  /** Adds the finished (or included) participants to a Prolific participant group. */
  addToGroup: (client: ApiClient, experimentId: string, body: GroupsBody, dryRun = false) =>
    client.request<GroupsResult>("POST", `${path(experimentId)}/groups`, { body, query: dry(dryRun) }),
};
