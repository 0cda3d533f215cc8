import type { RecommenderRecord } from "./builtins.ts";

/**
 * Looks up recommender records by key: the registry (built-ins and registered services). `get`
 * answers from memory and, on a miss, looks the key up once in the database, so a recommender
 * registered on another API process is found even before its change notification arrives.
 */
export interface RecommenderCatalog {
  get(key: string): Promise<RecommenderRecord | undefined>;
}
