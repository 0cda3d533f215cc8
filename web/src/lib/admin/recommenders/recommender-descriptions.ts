/**
 * What each built-in recommender does, one plain line each, for a researcher choosing an arm's
 * recommender and reading its results. Each line says what the code does (api/src/recommenders/
 * builtins/, docs/recommenders.md "The five built-ins"); change them together.
 */
export const BUILTIN_DESCRIPTIONS: Readonly<Record<string, string>> = {
  random:
    "A random order, fixed for each participant's session: a reload shows the same order, a new session a new one.",
  popularity:
    "Most played in this study first (plays by this study's participants, autoplay included), not the view counts participants see on the videos; ties newest first.",
  recency: "Newest publication date first (videos without a date last).",
  similarity:
    "Videos like the one being watched (by tags, category, channel and words, blended with what the same participants watched); on the feed, like the participant's recent watches; then most played in this study.",
  learned_model:
    "The order of the model trained on this study's events; until one is trained, and after its picks, most played in this study, then newest.",
};

/** What a recommender does in one line: the built-in's sentence, else the service's own description. */
export function describeRecommender(key: string, record?: { description?: string } | null): string {
  const builtin = BUILTIN_DESCRIPTIONS[key];
  if (builtin) return builtin;
  const own = record?.description?.trim();
  return own ? own : "An external service registered under Recommenders: it decides the order itself.";
}
