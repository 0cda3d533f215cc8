/**
 * The console's HTTP client: the request core and participant endpoints (`ParticipantApi`) with the
 * console credential on every request. The admin endpoints are one module per feature beside this
 * file (`experiments.ts`, `groups.ts`, ...), functions that take this client, so an admin request
 * cannot be sent without the credential. Load functions construct a client around SvelteKit's `fetch`
 * (`apiFor(fetch)`); components use the shared `api` instance.
 */
import { withConsoleCredential } from "../admin/console-credential.ts";
import { type Fetch, ParticipantApi } from "../participant-api.ts";

/** The participant endpoints, and the request core every admin function sends through. */
export class ApiClient extends ParticipantApi {
  /** Every request carries the console credential when this page has one (console-credential.ts). */
  constructor(fetchFn?: Fetch) {
    const send: Fetch = fetchFn ?? ((input, init) => fetch(input, init));
    super((input, init) => send(input, withConsoleCredential(init)));
  }

  /**
   * Marks a client that sends the console credential: an admin function takes an `ApiClient`, and a
   * bare `ParticipantApi` (which lacks this) does not type-check in its place.
   */
  readonly sendsConsoleCredential = true;
}

/** The client for components and event handlers. */
export const api = new ApiClient();

/** A client bound to the `fetch` SvelteKit hands to a `load` function. */
export function apiFor(fetchFn: Fetch): ApiClient {
  return new ApiClient(fetchFn);
}

/** A path segment from an id, name or key. */
export const enc = encodeURIComponent;
