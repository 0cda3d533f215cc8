import { type MessageKey, participantLanguage, t } from "#lib/i18n/messages.svelte.ts";
import { ApiError, participantApi as api, isApiError, type Query } from "#lib/participant-api.ts";
import { type Layout, loadLayout, UI_NONE } from "#lib/platform/presets/index.ts";
import { isAssigned, PlatformRuntime, platformRuntime } from "#lib/platform/runtime.ts";
import { preloadPlayer } from "#lib/platform/surfaces/players/index.ts";
import { registerTemplateResolver } from "#lib/platform/templates.ts";
import { participantSession } from "#lib/session.svelte.ts";
import type { ParticipantMe, Video } from "#lib/types.ts";
import { type RefusedSession, refusalOf, type SessionWindow, waitingWindow } from "./session-window.ts";
import { studyStatus } from "./study-status.svelte.ts";

// A group's UI may be a template: its id resolves through the participant API.
registerTemplateResolver();

/** The visitor has no participant cookie (401) or an admin one (403): they have not joined a study. */
type NoStudy = { readonly kind: "no-study" };
export type FeedData =
  | NoStudy
  | { readonly kind: "feed"; sessionId: string; runtime: PlatformRuntime; layout: Layout };
export type WatchData =
  | NoStudy
  | { readonly kind: "watch"; sessionId: string; runtime: PlatformRuntime; layout: Layout; video: Video };
/**
 * A step of the study flow that stands in for the feed and watch pages (api.md, Study flow): the
 * consent form, the closing page after declining, the paused notice, the completion page, the end
 * of a completed study (where the post survey is still served), and a schedule's come-back page and
 * closing page (api.md "Longitudinal studies (wave 4)").
 */
export type StudyStep =
  | {
      readonly kind: "consent" | "declined";
      readonly consent: NonNullable<ParticipantMe["consent"]>;
      /** The consent text as HTML (the Markdown renderer loads only for this step). */
      readonly html: string;
      /** The study sends reminders by e-mail: the form offers an optional address field. */
      readonly emailReminders: boolean;
    }
  | { readonly kind: "paused" }
  | {
      readonly kind: "finished";
      readonly completion: ParticipantMe["completion"];
      readonly runtime: PlatformRuntime;
    }
  | { readonly kind: "ended"; readonly sessionId: string }
  /** Waiting for the pre survey's answers, which decide the participant's arm (api.md "Assignment"). */
  | { readonly kind: "assigning"; readonly sessionId: string }
  /**
   * The page's session is before the schedule's next window, so nothing of it counts: when to come
   * back, said in `language` (the participant's), and once the window is open, a new session.
   */
  | { readonly kind: "waiting"; readonly window: SessionWindow; readonly language: string }
  /** A window of the schedule closed unused (the participant is `lapsed`, for good): `session`'s. */
  | { readonly kind: "lapsed"; readonly session: number };

/** A page that failed to load: what the error view shows. */
interface PageError {
  readonly status: number;
  readonly message: string;
}

/** What a participant URL renders, once its data is loaded. */
export type View =
  | { readonly page: "feed"; readonly data: FeedData }
  | { readonly page: "watch"; readonly data: WatchData }
  | { readonly page: "study"; readonly step: StudyStep }
  | { readonly page: "error"; readonly error: PageError };

/** A page load's outcome: a view, or another participant URL to go to instead. */
export type Loaded = View | { readonly page: "redirect"; readonly location: string };

/** The participant pages this shell serves (api/src/http/static.ts serves it for the same paths). */
export type Route = { readonly page: "feed" } | { readonly page: "watch"; readonly id: string };

export function routeOf(pathname: string): Route | null {
  if (pathname === "/") return { page: "feed" };
  const watch = /^\/watch\/([^/]+)$/.exec(pathname);
  if (!watch?.[1]) return null;
  try {
    return { page: "watch", id: decodeURIComponent(watch[1]) };
  } catch {
    return null; // a malformed escape: not a page of this app
  }
}

/** A page's own failure, with the status and the message (its key: said in the page's language) the error view shows. */
class PageFailure extends Error {
  readonly status: number;
  readonly key: MessageKey;
  constructor(status: number, key: MessageKey) {
    super(key);
    this.status = status;
    this.key = key;
  }
}

/** The last session a feed or watch request found before its window (409 session_not_open). */
let refused: RefusedSession | null = null;

/**
 * Notes a failed participant request: true when it was a feed or watch request of the page's session
 * refused as before the schedule's window, which the page then stands in for (the next load shows
 * when to come back instead of the feed).
 */
export function noteRefusal(error: ApiError, query: Query | undefined): boolean {
  const refusal = refusalOf(error, query);
  if (!refusal || refusal.sessionId !== participantSession.id) return false;
  refused = refusal;
  return true;
}

/**
 * Loads a participant page. Failures become the error view: a page's own (404 "Video not found"),
 * an API error with the API's message (the server never puts internals in it), anything else a 500.
 * A feed or watch request refused as before the schedule's window loads the page again once, which
 * then says when to come back.
 */
export async function loadPage(route: Route, again = true): Promise<Loaded> {
  try {
    return route.page === "feed" ? await loadFeed() : await loadWatch(route.id);
  } catch (failure) {
    if (again && failure instanceof ApiError && failure.code === "session_not_open")
      return loadPage(route, false);
    // The error view speaks the page's language: the first catalogue may still be on its way.
    await participantLanguage.ready();
    if (failure instanceof PageFailure)
      return { page: "error", error: { status: failure.status, message: t(failure.key) } };
    console.error(failure);
    if (failure instanceof ApiError) {
      return {
        page: "error",
        error: { status: failure.status >= 400 ? failure.status : 500, message: failure.message },
      };
    }
    return { page: "error", error: { status: 500, message: t("error.internal") } };
  }
}

/**
 * The participant's runtime for this session; null when the visitor has not joined; or the study-flow
 * step that stands in for the page (consent first, then the completion page, then the study's state).
 */
async function runtimeOrNoStudy(): Promise<PlatformRuntime | StudyStep | null> {
  let me: ParticipantMe;
  let sessionId: string;
  try {
    // The session first: `me` says which visit it makes (a completion rule counts it once an event of
    // it arrives: studyStatus.finishWhenCounted). Only a session's first page waits for the registration.
    sessionId = await participantSession.ensure(api);
    me = await api.participantMe(sessionId);
  } catch (error) {
    // No participant cookie (401), or an admin cookie instead of one (403): the visitor has not joined.
    if (isApiError(error, 401) || isApiError(error, 403)) {
      participantLanguage.choices = [];
      studyStatus.update(null);
      await participantLanguage.useVisitorLanguage();
      return null;
    }
    throw error;
  }
  // Feedlab's strings follow the participant's language before anything of the page shows.
  participantLanguage.choices = me.language_switch ? me.languages : [];
  studyStatus.update(me, sessionId);
  await participantLanguage.use(me.language);
  // A window of the schedule closed unused: final, and nothing more is recorded.
  if (me.status === "lapsed") return { kind: "lapsed", session: me.progress.sessions + 1 };
  if (me.consent && !me.consent.consented_at) {
    const { renderMarkdown } = await import("#lib/markdown.ts");
    return {
      kind: me.consent.declined_at ? "declined" : "consent",
      consent: me.consent,
      html: renderMarkdown(me.consent.text),
      emailReminders: me.email_reminders,
    };
  }
  // A draft admits its simulated participants (a dry run) and no one else (api.md).
  const open = me.experiment_status === "running" || (me.experiment_status === "draft" && me.simulated);
  // Before the schedule's next window nothing of the study shows, and nothing is recorded.
  const waiting =
    open && me.status === "active"
      ? waitingWindow(me, refused?.sessionId === sessionId ? refused : null)
      : null;
  if (waiting) return { kind: "waiting", window: waiting, language: me.language };
  if (!isAssigned(me)) {
    // No arm yet: only the pre survey, whose answers decide it; the tracking runtime waits for the arm.
    if (me.experiment_status === "paused") return { kind: "paused" };
    return open ? { kind: "assigning", sessionId } : { kind: "ended", sessionId };
  }
  // The tracking runtime starts only after consent: nothing is recorded before it.
  const runtime = platformRuntime(me, sessionId);
  if (me.status === "finished") return { kind: "finished", completion: me.completion, runtime };
  studyStatus.finishWhenCounted(me, sessionId, runtime.core.transport);
  if (me.experiment_status === "paused") return { kind: "paused" };
  if (!open) return { kind: "ended", sessionId };
  return runtime;
}

const isStep = (r: PlatformRuntime | StudyStep): r is StudyStep => !(r instanceof PlatformRuntime);

/**
 * The page's layout. One that cannot be loaded is an error page, never another layout in its place:
 * what a participant sees is always what the researcher assigned.
 */
async function layoutOf(key: string, page: "feed" | "watch"): Promise<Layout> {
  try {
    return await loadLayout(key, page);
  } catch (failure) {
    console.error(failure);
    throw new PageFailure(500, "error.layout");
  }
}

/**
 * The feed page resolves the group's `ui_config.feed` (spec: UI resolution): `none` redirects to the
 * first recommended video; any other key loads its layout while the first feed page is fetched.
 */
async function loadFeed(): Promise<Loaded> {
  const runtime = await runtimeOrNoStudy();
  if (!runtime) return { page: "feed", data: { kind: "no-study" } };
  if (isStep(runtime)) return { page: "study", step: runtime };
  const uiKey = runtime.session.uiConfig.feed;
  if (uiKey === UI_NONE) {
    // Reads the session's own events first, so a video just watched is not opened again.
    const first = await runtime.data.feed(0, 1);
    const video = first.items[0];
    if (video) return { page: "redirect", location: `/watch/${video.id}` };
  } else {
    runtime.data.prefetchFeed();
  }
  const layout = await layoutOf(uiKey, "feed");
  return { page: "feed", data: { kind: "feed", sessionId: runtime.session.sessionId, runtime, layout } };
}

/**
 * The watch page resolves the group's `ui_config.watch` and loads that layout while the video and the
 * first related page are fetched.
 */
async function loadWatch(id: string): Promise<Loaded> {
  const runtime = await runtimeOrNoStudy();
  if (!runtime) return { page: "watch", data: { kind: "no-study" } };
  if (isStep(runtime)) return { page: "study", step: runtime };
  runtime.data.prefetchRelated(id);
  const [video, layout] = await Promise.all([
    runtime.data.video(id).then(
      (found) => {
        preloadPlayer(found);
        return found;
      },
      (failure: unknown) => {
        // The participant view answers 404 for anything outside the experiment's pool, and a malformed id
        // may be refused as bad input: both mean there is no such video here.
        if (isApiError(failure, 404) || isApiError(failure, 400) || isApiError(failure, 422)) {
          throw new PageFailure(404, "error.videoNotFound");
        }
        throw failure;
      },
    ),
    layoutOf(runtime.session.uiConfig.watch, "watch"),
  ]);
  return {
    page: "watch",
    data: { kind: "watch", sessionId: runtime.session.sessionId, runtime, layout, video },
  };
}
