import type { HandleClientError } from "@sveltejs/kit/hooks";
import { participantLanguage } from "#lib/i18n/messages.svelte.ts";
import { ApiError } from "#lib/participant-api.ts";
import en from "./participant/messages/en.json?messages";

// The console is in English, and its dialogs and buttons share the participant pages' components
// (which speak through `t`): English is bundled here, in use before the first render. The join page
// loads another language's catalogue when the visitor reads one.
participantLanguage.provide("en", en);

/**
 * A load that fails with an unexpected API error shows the API's own message (the server never puts
 * internals in it) on the error page instead of SvelteKit's generic "Internal Error".
 */
export const handleError: HandleClientError = ({ kind, error }) => {
  if (kind !== "unknown") return;
  console.error(error);
  if (error instanceof ApiError) {
    return { status: error.status >= 400 ? error.status : 500, message: error.message, code: error.code };
  }
};
