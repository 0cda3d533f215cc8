import type { KeyValueStore } from "./storage.ts";

/** sessionStorage key of the tab's session id (spec: a random UUID kept in browser session storage). */
export const SESSION_ID_KEY = "feedlab.session_id";
/** sessionStorage key of the session id `POST /sessions` accepted, so a reload does not repeat it. */
const REGISTERED_KEY = "feedlab.session_registered";
/** sessionStorage key of the participant the session belongs to. */
const USER_KEY = "feedlab.session_user";
/**
 * sessionStorage key: the referrer of the join page, kept across the full page load from there to the
 * feed (a separate app), so SESSION_START names the recruitment site rather than the join page.
 */
export const ENTRY_REFERRER_KEY = "feedlab.entry_referrer";

/**
 * Registers a session id with the server (`POST /sessions`): resolves `"ok"` on 201 or 200, `"taken"`
 * when another participant holds the id (403), and throws on anything else.
 */
export type RegisterSession = (sessionId: string) => Promise<"ok" | "taken">;

/**
 * The participant's browsing session (spec: Session lifecycle). A session lives as long as the tab's
 * sessionStorage: closing the tab starts a new one (which is what triggers inter-session surveys); a
 * reload keeps it. The id is registered with the server exactly once before anything uses it.
 */
export class SessionStore {
  readonly #store: KeyValueStore;
  readonly #newId: () => string;
  #pending: Promise<string> | null = null;
  /** Called whenever the current id changes (set or cleared). */
  onChange: (id: string | null) => void = () => {};

  constructor(store: KeyValueStore, newId: () => string) {
    this.#store = store;
    this.#newId = newId;
  }

  /** The id in storage, registered or not. */
  get current(): string | null {
    return this.#store.getItem(SESSION_ID_KEY);
  }

  /** Resolves the registered session id, creating and registering one first if needed. */
  ensure(register: RegisterSession): Promise<string> {
    this.#pending ??= this.#ensure(register).catch((error: unknown) => {
      this.#pending = null;
      throw error;
    });
    return this.#pending;
  }

  /**
   * Ends the tab's session and begins another: a fresh id, registered as `ensure` registers one and
   * resolved by `ensure` from then on; what the old session sent stays on the server. A tab otherwise
   * keeps its session as long as it lives: this is for one begun before its window of the study's
   * schedule, which never counts (api.md "Longitudinal studies (wave 4)"), once the window is open.
   */
  renew(register: RegisterSession): Promise<string> {
    const before = this.#pending;
    const renewed = (async () => {
      // A registration under way settles first, so it cannot write its id over the new one.
      await before?.catch(() => undefined);
      this.#discard();
      return this.#ensure(register);
    })();
    const pending = renewed.catch((error: unknown) => {
      if (this.#pending === pending) this.#pending = null;
      throw error;
    });
    this.#pending = pending;
    return pending;
  }

  /**
   * Ties the session to the participant who just joined. Another participant in the same tab (another
   * study link) gets a fresh session, since a session id belongs to one participant.
   */
  bindUser(userId: string): void {
    const previous = this.#store.getItem(USER_KEY);
    if (previous !== null && previous !== userId) this.#reset();
    this.#store.setItem(USER_KEY, userId);
  }

  async #ensure(register: RegisterSession): Promise<string> {
    let id = this.#store.getItem(SESSION_ID_KEY) ?? this.#fresh();
    if (this.#store.getItem(REGISTERED_KEY) !== id) {
      if ((await register(id)) === "taken") {
        // Registered by another participant (a different login in this tab): start over.
        this.#reset();
        id = this.#fresh();
        if ((await register(id)) === "taken") throw new Error("A new session id was refused as taken.");
      }
      this.#store.setItem(REGISTERED_KEY, id);
    }
    this.onChange(id);
    return id;
  }

  #fresh(): string {
    const id = this.#newId();
    this.#store.setItem(SESSION_ID_KEY, id);
    return id;
  }

  #reset(): void {
    this.#discard();
    this.#pending = null;
  }

  /** Forgets the session id (the participant it belongs to stays). */
  #discard(): void {
    this.#store.removeItem(SESSION_ID_KEY);
    this.#store.removeItem(REGISTERED_KEY);
    this.onChange(null);
  }
}
