import { randomUuid } from "../../uuid.ts";
import { describeEnvironment } from "./environment.ts";
import { Outbox } from "./outbox.ts";
import { ENTRY_REFERRER_KEY } from "./session.ts";
import { type KeyValueStore, webStore } from "./storage.ts";
import { SequenceStore, Tracker } from "./tracker.ts";
import { Transport } from "./transport.ts";

/** sessionStorage key: the session whose SESSION_START was sent (once per session, not per page load). */
const STARTED_KEY = "feedlab.session_started";

/** Page-level signals the surfaces turn into VISIBILITY_CHANGE, WINDOW_FOCUS and WINDOW_BLUR. */
export type PageSignal =
  | { readonly type: "visibility"; readonly visible: boolean; readonly visibilityState: string }
  | { readonly type: "focus" }
  | { readonly type: "blur" };

/**
 * How a page is being left: `to` is the URL of the next page inside the app, or null when the document
 * itself goes away (reload, tab closed, another site).
 */
export interface Leaving {
  readonly to: string | null;
  readonly unloading: boolean;
}

export interface TrackingCoreOptions {
  readonly sessionId: string;
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  readonly sendBeacon?: (url: string, data: Blob) => boolean;
  readonly localStore?: KeyValueStore;
  readonly sessionStore?: KeyValueStore;
  readonly now?: () => number;
  readonly newId?: () => string;
  /** The window whose lifecycle is followed (pagehide, visibility, focus, online); none in unit tests. */
  readonly win?: Window;
}

type Hook<T> = (value: T) => void;

/**
 * The tracking core of one session, framework-free: tracker (buffers and flush rules), transport
 * (outbox in localStorage, retries, beacon) and the page lifecycle around them.
 *
 * - SESSION_START once per session (`startSession`), SESSION_END when the document unloads.
 * - Leaving a page (`leave`): the surfaces' exit hooks run (NAVIGATION, PAGE_EXIT, a playing video's
 *   pause), then every buffer flushes, so the next page's feed request can read those events' effects.
 * - `pagehide`: exit hooks, SESSION_END, then one batch of everything buffered and a beacon of every
 *   unsent batch. `visibilitychange` to hidden flushes the buffers (mobile browsers often never fire
 *   pagehide); `online` ends a retry backoff at once.
 */
export class TrackingCore {
  readonly sessionId: string;
  readonly tracker: Tracker;
  readonly transport: Transport;
  readonly outbox: Outbox;
  readonly #session: KeyValueStore;
  readonly #leaveHooks = new Set<Hook<Leaving>>();
  readonly #resumeHooks = new Set<Hook<void>>();
  readonly #signalHooks = new Set<Hook<PageSignal>>();
  readonly #cleanup: (() => void)[] = [];

  constructor(options: TrackingCoreOptions) {
    const now = options.now ?? Date.now;
    const newId = options.newId ?? randomUuid;
    const beacon =
      options.sendBeacon ??
      (typeof navigator !== "undefined" && typeof navigator.sendBeacon === "function"
        ? (url: string, data: Blob) => navigator.sendBeacon(url, data)
        : undefined);
    this.sessionId = options.sessionId;
    this.#session = options.sessionStore ?? webStore("session");
    this.outbox = new Outbox(options.localStore ?? webStore("local"), options.sessionId, now);
    this.transport = new Transport({
      outbox: this.outbox,
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      sendBeacon: beacon,
      now,
    });
    this.tracker = new Tracker({
      sessionId: options.sessionId,
      transport: this.transport,
      seq: new SequenceStore(this.#session, options.sessionId),
      now,
      newId,
    });
    this.outbox.adoptOrphans();
    this.transport.start();
    if (options.win) this.#install(options.win);
  }

  /** SESSION_START, once per session: a reload or the next page of the same session does not repeat it. */
  startSession(initialPageType: string, win: Window = window): void {
    if (this.#session.getItem(STARTED_KEY) === this.sessionId) return;
    try {
      this.#session.setItem(STARTED_KEY, this.sessionId);
    } catch {
      // Without storage a reload may repeat SESSION_START; the events still say which page loaded.
    }
    const entryReferrer = this.#session.getItem(ENTRY_REFERRER_KEY);
    this.#session.removeItem(ENTRY_REFERRER_KEY);
    this.tracker.track("SESSION_START", {
      sessionId: this.sessionId,
      startTime: Date.now(),
      referrer: entryReferrer ?? win.document.referrer,
      initialUrl: win.location.href,
      initialPageType,
      environment: describeEnvironment(win),
    });
  }

  /** Runs when the current page is left; returns the unsubscribe function. */
  onLeave(hook: Hook<Leaving>): () => void {
    this.#leaveHooks.add(hook);
    return () => this.#leaveHooks.delete(hook);
  }

  /** Runs when a page left by unloading comes back from the back/forward cache. */
  onResume(hook: Hook<void>): () => void {
    this.#resumeHooks.add(hook);
    return () => this.#resumeHooks.delete(hook);
  }

  /** Visibility and focus changes of the page. */
  onSignal(hook: Hook<PageSignal>): () => void {
    this.#signalHooks.add(hook);
    return () => this.#signalHooks.delete(hook);
  }

  /** The page is being left for another page of the app (`to`): exit hooks, then all buffers flush. */
  leave(to: string | null): void {
    this.#runLeave({ to, unloading: false });
    this.tracker.flush();
  }

  /** The document is going away: exit hooks, SESSION_END, and everything unsent goes by beacon. */
  unload(): void {
    this.tracker.unload(() => {
      this.#runLeave({ to: null, unloading: true });
      this.tracker.track("SESSION_END", { sessionId: this.sessionId });
    });
  }

  /**
   * Waits (at most `timeoutMs`) until every batch sent so far is acknowledged, then returns the latest
   * log position: the `after` token that makes the feed read this session's events.
   */
  async settled(timeoutMs = 2000): Promise<string | null> {
    await this.transport.idle(timeoutMs);
    return this.transport.position;
  }

  dispose(): void {
    for (const undo of this.#cleanup.splice(0)) undo();
    this.tracker.dispose();
    this.transport.dispose();
  }

  #runLeave(leaving: Leaving): void {
    for (const hook of [...this.#leaveHooks]) {
      try {
        hook(leaving);
      } catch (error) {
        console.error("feedlab: a page exit hook failed", error);
      }
    }
  }

  #signal(signal: PageSignal): void {
    for (const hook of [...this.#signalHooks]) hook(signal);
  }

  #install(win: Window): void {
    const doc = win.document;
    const listen = (target: EventTarget, type: string, fn: (e: Event) => void) => {
      target.addEventListener(type, fn);
      this.#cleanup.push(() => target.removeEventListener(type, fn));
    };
    listen(win, "pagehide", () => this.unload());
    listen(win, "pageshow", (e) => {
      if (!(e as PageTransitionEvent).persisted) return;
      for (const hook of [...this.#resumeHooks]) hook();
      this.transport.start();
    });
    listen(doc, "visibilitychange", () => {
      const visible = doc.visibilityState === "visible";
      this.#signal({ type: "visibility", visible, visibilityState: doc.visibilityState });
      // Hidden pages may be discarded without a pagehide (mobile): send what is buffered now.
      if (!visible) this.tracker.flush();
    });
    listen(win, "focus", () => this.#signal({ type: "focus" }));
    listen(win, "blur", () => this.#signal({ type: "blur" }));
    listen(win, "online", () => this.transport.retryNow());
  }
}
