import { ApiError, type ParticipantApi } from "./participant-api.ts";
import { SessionStore } from "./platform/tracking/session.ts";
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
    return this.#store.ensure(async (id) => {
      try {
        await client.registerSession(id);
        return "ok";
      } catch (error) {
        // 403: the id was registered by another participant (a different login in this tab).
        if (error instanceof ApiError && error.status === 403) return "taken";
        throw error;
      }
    });
  }

  /** Ties the session to the participant who just joined (another participant gets a fresh session). */
  bindUser(userId: string): void {
    this.#store.bindUser(userId);
  }
}

export const participantSession = new ParticipantSession();
