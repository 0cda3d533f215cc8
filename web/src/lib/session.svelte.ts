import { ApiError, type ParticipantApi } from "./participant-api.ts";
import { type RegisterSession, SessionStore } from "./platform/tracking/session.ts";
import { webStore } from "./platform/tracking/storage.ts";
import { randomUuid } from "./uuid.ts";

/**
 * The participant's browsing session for Svelte code: the tracking core's `SessionStore` (a random
 * UUID in sessionStorage, registered with `POST /sessions` once per id) with the current id as state.
 */
class ParticipantSession {
  /** The current session id, once `ensure` has run. */
  id = $state<string | null>(null);
  #sessions: SessionStore | null = null;

  get #store(): SessionStore {
    if (!this.#sessions) {
      this.#sessions = new SessionStore(webStore("session"), randomUuid);
      this.#sessions.onChange = (id) => {
        this.id = id;
      };
    }
    return this.#sessions;
  }

  /** Returns the registered session id, creating and registering one first if needed. */
  ensure(client: ParticipantApi): Promise<string> {
    return this.#store.ensure(registerWith(client));
  }

  /**
   * Begins a new session in place of the tab's current one and returns its registered id, which
   * `ensure` returns from then on. For a session begun before its window of the study's schedule,
   * which never counts (api.md "Longitudinal studies (wave 4)"): once the window is open, the
   * participant starts the next session afresh.
   */
  begin(client: ParticipantApi): Promise<string> {
    return this.#store.renew(registerWith(client));
  }

  /** Ties the session to the participant who just joined (another participant gets a fresh session). */
  bindUser(userId: string): void {
    this.#store.bindUser(userId);
  }
}

/** `POST /sessions` through `client`; a 403 means another participant holds the id (a different login in this tab). */
function registerWith(client: ParticipantApi): RegisterSession {
  return async (id) => {
    try {
      await client.registerSession(id);
      return "ok";
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return "taken";
      throw error;
    }
  };
}

export const participantSession = new ParticipantSession();
