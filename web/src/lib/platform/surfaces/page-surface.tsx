import { videoMeta } from "@feedlab/schemas/events/video-meta.ts";
import type { ComponentChildren, HTMLAttributes } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { Video } from "../../types.ts";
import { SurfaceContext, type SurfaceContextValue, useRuntime } from "../context.ts";
import type { PlatformRuntime } from "../runtime.ts";
import { MouseSampler, ScrollTracker, type TrackedItem, ViewportTracker } from "../tracking/samplers.ts";

/** IntersectionObserver thresholds: enough steps for the ratios reported, including the 50 % impression mark. */
const THRESHOLDS = [0, 0.25, 0.5, 0.75, 1];

const pathOf = (href: string) => {
  const url = new URL(href, location.href);
  return url.origin === location.origin ? url.pathname + url.search : url.href;
};

/**
 * Everything a page surface emits (spec: the events whose emitter is "Feed/Watch surface"):
 * PAGE_LOAD on mount; NAVIGATION and PAGE_EXIT when the page is left; MOUSE_MOVEMENT, SCROLL and
 * VIEWPORT_VISIBILITY at the spec's sampling; VISIBILITY_CHANGE, WINDOW_FOCUS and WINDOW_BLUR.
 * Returns the card registry the VideoSurfaces inside use (one IntersectionObserver per page).
 */
function usePageTelemetry(
  runtime: PlatformRuntime,
  pageType: "feed" | "watch",
): SurfaceContextValue["observe"] {
  const tracker = runtime.core.tracker;
  const viewport = useMemo(
    () =>
      new ViewportTracker({
        emit: (payload) => tracker.track("VIEWPORT_VISIBILITY", payload),
        context: pageType,
        isActive: () => document.visibilityState === "visible",
      }),
    [tracker, pageType],
  );
  const observer = useRef<IntersectionObserver | null>(null);

  useEffect(() => {
    const url = location.href;
    let mountedAt = Date.now();
    let exited = false;
    const dwell = () => {
      const ms = Date.now() - mountedAt;
      return { dwellTimeMs: ms, dwellTimeSec: Math.round(ms / 10) / 100 };
    };
    const mouse = new MouseSampler({
      emit: (payload) => tracker.track("MOUSE_MOVEMENT", payload),
      context: pageType,
    });
    const scroll = new ScrollTracker({
      emit: (payload) => tracker.track("SCROLL", payload),
      read: () => ({
        scrollY: window.scrollY,
        pageHeight: document.documentElement.scrollHeight,
        viewportHeight: window.innerHeight,
      }),
    });
    const onMove = (e: MouseEvent) => mouse.move(e.clientX, e.clientY);
    const onScroll = () => scroll.scrolled();
    const begin = () => {
      mountedAt = Date.now();
      exited = false;
      tracker.track("PAGE_LOAD", { url: location.href, pageType });
      viewport.start();
    };
    const exit = (to: string | null) => {
      if (exited) return;
      exited = true;
      mouse.flush();
      scroll.stop();
      viewport.report();
      viewport.stop();
      const d = dwell();
      if (to !== null) tracker.track("NAVIGATION", { from: pathOf(url), to: pathOf(to), pageType, ...d });
      tracker.track("PAGE_EXIT", { url, pageType, ...d });
    };

    begin();
    window.addEventListener("mousemove", onMove, { passive: true });
    window.addEventListener("scroll", onScroll, { passive: true });
    const unLeave = runtime.core.onLeave(({ to }) => exit(to));
    const unResume = runtime.core.onResume(begin);
    const unSignal = runtime.core.onSignal((signal) => {
      if (exited) return;
      if (signal.type === "visibility") {
        tracker.track("VISIBILITY_CHANGE", {
          visible: signal.visible,
          visibilityState: signal.visibilityState,
        });
      } else {
        tracker.track(signal.type === "focus" ? "WINDOW_FOCUS" : "WINDOW_BLUR", {});
      }
    });
    return () => {
      // Unmounted without the host announcing a navigation (the layout was replaced): still an exit.
      exit(null);
      unLeave();
      unResume();
      unSignal();
      mouse.stop();
      window.removeEventListener("mousemove", onMove);
      window.removeEventListener("scroll", onScroll);
      observer.current?.disconnect();
      observer.current = null;
    };
  }, [runtime, tracker, pageType, viewport]);

  return useMemo(
    () => (element: Element, item: TrackedItem, onImpression: () => void) => {
      observer.current ??= new IntersectionObserver(
        (entries) => {
          for (const entry of entries)
            viewport.update(entry.target, entry.isIntersecting ? entry.intersectionRatio : 0);
        },
        { threshold: THRESHOLDS },
      );
      const io = observer.current;
      viewport.add(element, item, onImpression);
      io.observe(element);
      return () => {
        io.unobserve(element);
        viewport.remove(element);
      };
    },
    [viewport],
  );
}

type DivProps = Omit<HTMLAttributes<HTMLDivElement>, "children">;

export interface FeedSurfaceProps extends DivProps {
  readonly children?: ComponentChildren;
}

/**
 * The feed page's surface: wrap the whole feed page in it. It emits the page events (PAGE_LOAD,
 * NAVIGATION, PAGE_EXIT), the telemetry (MOUSE_MOVEMENT, SCROLL, VIEWPORT_VISIBILITY) and the tab
 * state (VISIBILITY_CHANGE, WINDOW_FOCUS, WINDOW_BLUR), and follows the VideoSurface cards inside.
 * HOME_FEED comes with the data (`useFeed`, per new chunk). Renders a `<div>` with the given props.
 */
export function FeedSurface({ children, ...rest }: FeedSurfaceProps) {
  const runtime = useRuntime();
  const observe = usePageTelemetry(runtime, "feed");
  const value = useMemo<SurfaceContextValue>(() => ({ pageType: "feed", video: null, observe }), [observe]);
  return (
    <SurfaceContext.Provider value={value}>
      <div data-feedlab-surface="feed" {...rest}>
        {children}
      </div>
    </SurfaceContext.Provider>
  );
}

export interface WatchSurfaceProps extends DivProps {
  /** The video of the page (from `useVideo`); null while it loads. */
  readonly video: Video | null;
  readonly children?: ComponentChildren;
}

/**
 * The watch page's surface: wrap the whole watch page in it. It emits the same page, telemetry and
 * tab-state events as FeedSurface, plus VIDEO_META_CAPTURED each time its video changes. The related
 * list's RECOMMENDATIONS come with the data (`useRelated`); playback events come from the
 * `VideoSurface` with `context="watch"` inside.
 */
export function WatchSurface({ video, children, ...rest }: WatchSurfaceProps) {
  const runtime = useRuntime();
  const observe = usePageTelemetry(runtime, "watch");
  const tracker = runtime.core.tracker;
  useEffect(() => {
    if (!video) return;
    tracker.track("VIDEO_META_CAPTURED", videoMeta(video));
  }, [tracker, video?.id]);
  const value = useMemo<SurfaceContextValue>(() => ({ pageType: "watch", video, observe }), [video, observe]);
  return (
    <SurfaceContext.Provider value={value}>
      <div data-feedlab-surface="watch" {...rest}>
        {children}
      </div>
    </SurfaceContext.Provider>
  );
}
