import { tick } from "svelte";
import { participantLanguage, t } from "#lib/i18n/messages.svelte.ts";
import { participantApi } from "#lib/participant-api.ts";
import { announceNavigation } from "#lib/platform/navigation.ts";
import { loadPage, noteRefusal, routeOf, type View } from "./pages.ts";
import { studyStatus } from "./study-status.svelte.ts";

/** The participant shell's history entries carry their position, for scroll restoration. */
interface EntryState {
  readonly feedlabIndex: number;
}

interface ScrollPosition {
  readonly x: number;
  readonly y: number;
}

/** sessionStorage key: the scroll positions of this tab's history entries, kept across reloads. */
const SCROLL_KEY = "feedlab.scroll";
/** Same bound as the fetch spec's redirect limit. */
const MAX_REDIRECTS = 20;

const indexOf = (state: unknown): number | null =>
  state && typeof state === "object" && "feedlabIndex" in state && typeof state.feedlabIndex === "number"
    ? state.feedlabIndex
    : null;

/**
 * The client-side router of the participant pages (`/` and `/watch/{id}`): the navigation between
 * them stays inside one document, so the tracking core's buffers and the session live on. It mirrors
 * what the pages had under SvelteKit: links to those pages and history traversals load the next page,
 * the layout host hears of it first (`beforeNavigate`), the URL changes as the new page renders, new
 * pages start at the top and traversals restore their scroll position, focus resets to the document
 * and a live region announces the new title. Every other link is a full page load.
 */
class ParticipantRouter {
  /** What the shell renders; null until the first page has loaded. */
  view = $state.raw<View | null>(null);
  /** The title of the page navigated to, for screen readers (empty on the first page). */
  announcement = $state("");
  #url: URL | null = null;
  #token: object = {};
  #index = 0;
  #scroll: Record<number, ScrollPosition> = {};

  start(): void {
    history.scrollRestoration = "manual";
    try {
      this.#scroll = JSON.parse(sessionStorage.getItem(SCROLL_KEY) ?? "{}") as Record<number, ScrollPosition>;
    } catch {
      this.#scroll = {};
    }
    const entered = indexOf(history.state);
    this.#index = entered ?? Date.now();
    if (entered === null) history.replaceState(this.#state(), "");
    addEventListener("click", (event) => this.#onClick(event));
    addEventListener("popstate", (event) => this.#onPopState(event));
    addEventListener("pagehide", () => {
      this.#saveScroll();
      try {
        sessionStorage.setItem(SCROLL_KEY, JSON.stringify(this.#scroll));
      } catch {
        // A reload starts at the top instead.
      }
    });
    void this.#navigate(new URL(location.href), { kind: "enter", restore: entered !== null });
  }

  /**
   * Loads the current page again (its data may have changed: the study flow moved on after a survey,
   * or the consent was given). The layout host hears of it as of any navigation.
   */
  reload(): Promise<void> {
    return this.#navigate(new URL(location.href), { kind: "replace" }, 0, true);
  }

  #state(): EntryState {
    return { feedlabIndex: this.#index };
  }

  #saveScroll(): void {
    this.#scroll[this.#index] = { x: scrollX, y: scrollY };
  }

  #onClick(event: MouseEvent): void {
    if (event.button || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (event.defaultPrevented) return;
    const anchor = event
      .composedPath()
      .find(
        (node): node is HTMLAnchorElement | SVGAElement =>
          node instanceof HTMLAnchorElement || node instanceof SVGAElement,
      );
    if (!anchor || anchor.hasAttribute("download")) return;
    const target = anchor instanceof SVGAElement ? anchor.target.baseVal : anchor.target;
    if (target && target !== "_self") return;
    const href = anchor instanceof SVGAElement ? anchor.href.baseVal : anchor.href;
    const url = new URL(href, location.href);
    if (url.origin !== location.origin || !routeOf(url.pathname)) return;
    // A link to a fragment of this page is the browser's to follow.
    if (url.hash && url.pathname === location.pathname && url.search === location.search) return;
    event.preventDefault();
    void this.#navigate(url, { kind: url.href === location.href ? "replace" : "push" });
  }

  #onPopState(event: PopStateEvent): void {
    const index = indexOf(event.state);
    // Fragment changes inside a page create entries of their own: nothing to load.
    if (index === null || !routeOf(location.pathname)) return;
    this.#saveScroll();
    this.#index = index;
    void this.#navigate(new URL(location.href), { kind: "pop", restore: true });
  }

  async #navigate(
    url: URL,
    how: { kind: "enter" | "pop"; restore: boolean } | { kind: "push" | "replace" },
    redirects = 0,
    fresh = false,
  ): Promise<void> {
    const route = routeOf(url.pathname);
    if (!route) {
      // The server sent this shell for a path it cannot read (a malformed escape, say): loading it
      // again would loop, so say it is not found.
      if (how.kind === "enter") {
        await participantLanguage.ready();
        await this.#show(url, how, { page: "error", error: { status: 404, message: t("error.notFound") } });
      } else location.assign(url.href);
      return;
    }
    const token = {};
    this.#token = token;
    if (how.kind !== "enter") announceNavigation({ from: this.#url, to: url });
    // The pages' data depends on the path only: a link to the page shown keeps it, as SvelteKit did.
    const current = this.view;
    const loaded =
      !fresh && current && current.page !== "error" && this.#url?.pathname === url.pathname
        ? current
        : await loadPage(route);
    if (this.#token !== token) return;
    if (loaded.page === "redirect") {
      const next = new URL(loaded.location, url);
      if (redirects >= MAX_REDIRECTS) {
        await participantLanguage.ready();
        this.#show(url, how, { page: "error", error: { status: 500, message: t("error.redirectLoop") } });
        return;
      }
      // The first page (or a traversal) is replaced by where it redirects; a link's target is pushed.
      const kind = how.kind === "push" ? "push" : "replace";
      await this.#navigate(next, { kind }, redirects + 1);
      return;
    }
    await this.#show(url, how, loaded);
  }

  async #show(
    url: URL,
    how: { kind: "enter" | "pop"; restore: boolean } | { kind: "push" | "replace" },
    view: View,
  ): Promise<void> {
    if (how.kind === "push" || how.kind === "replace") {
      this.#saveScroll();
      if (how.kind === "push") this.#index += 1;
      history[how.kind === "push" ? "pushState" : "replaceState"](this.#state(), "", url.href);
    }
    const first = this.#url === null;
    // Focus returns to the top of the document after the change, unless the new page takes it.
    if (!first && document.activeElement instanceof HTMLElement) document.activeElement.blur();
    this.#url = url;
    this.view = view;
    await tick();
    const saved = "restore" in how && how.restore ? this.#scroll[this.#index] : undefined;
    if (saved) scrollTo(saved.x, saved.y);
    else if (!first) scrollTo(0, 0);
    if (first) return;
    if (document.activeElement === document.body || document.activeElement === null) resetFocus();
    this.announcement = document.title;
  }
}

/** Moves the sequential focus starting point to the top of the document without showing a focus ring. */
function resetFocus(): void {
  const body = document.body;
  const tabindex = body.getAttribute("tabindex");
  body.setAttribute("tabindex", "-1");
  body.focus({ preventScroll: true });
  if (tabindex === null) body.removeAttribute("tabindex");
  else body.setAttribute("tabindex", tabindex);
}

export const router = new ParticipantRouter();

// A visit that finishes the study once counted shows the completion page as soon as the server says so.
studyStatus.onFinished = () => void router.reload();

// A feed or watch request of the page's session refused as before the schedule's window (a layout's,
// or a prefetch while the page loads): the page is loaded again, and says when to come back.
participantApi.onError = (error, query) => {
  if (!noteRefusal(error, query)) return;
  const view = router.view;
  if (view?.page !== "study" || view.step.kind !== "waiting") void router.reload();
};

/**
 * An answer to the post survey, or a recorded dismissal of it, may finish the study: the page is
 * loaded again to find out (api.md, Validity rules).
 */
export function onSurveySettled(kind: string): void {
  if (kind === "post") void router.reload();
}
