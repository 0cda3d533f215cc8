import { apiFor } from "#lib/api/client.ts";
import { participantLanguage } from "#lib/i18n/messages.svelte.ts";
import { joinErrorMessage, joinStudy, loginIdFromQuery, openFeed, recruitingFromQuery } from "#lib/join.ts";
import type { PageLoad } from "./$types";

/**
 * `/join/{experiment_id}?login_id=...` (with `lang=` for the participant's language) joins at once and lands on the feed; without an id in the query
 * the page asks for one. The feed is another app (web/src/participant): it is reached by a full page load.
 */
export const load = (async ({ fetch, params, url }) => {
  const experimentId = params.experiment;
  const loginId = loginIdFromQuery(url.searchParams);
  const lang = url.searchParams.get("lang");
  // Before joining, the participant's language is the link's or the browser's.
  await participantLanguage.useVisitorLanguage(lang);
  if (!loginId) return { experimentId, loginId: null, error: null, lang };

  let message: string;
  try {
    await joinStudy(
      apiFor(fetch),
      experimentId,
      loginId,
      recruitingFromQuery(url.searchParams),
      url.searchParams.get("sig"),
      lang,
    );
    message = "";
  } catch (failure) {
    message = joinErrorMessage(failure);
  }
  if (!message) return openFeed();
  return { experimentId, loginId, error: message, lang };
}) satisfies PageLoad;
