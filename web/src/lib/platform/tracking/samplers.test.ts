import type { Payloads } from "@feedlab/schemas";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MouseSampler, ScrollTracker, ViewportTracker } from "./samplers.ts";

const T0 = Date.UTC(2026, 10, 21, 9, 0, 0);

describe("sampling of the high-frequency telemetry", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  describe("MOUSE_MOVEMENT", () => {
    it("samples the latest position every 100 ms and sends one event per 2 s window", () => {
      const sent: Payloads["MOUSE_MOVEMENT"][] = [];
      const mouse = new MouseSampler({ emit: (p) => sent.push(p), context: "feed" });
      // The mouse moves every 10 ms for 2 s: 200 moves, 20 samples.
      for (let i = 0; i < 200; i++) {
        mouse.move(i, 2 * i);
        vi.advanceTimersByTime(10);
      }
      expect(sent).toHaveLength(1);
      const [event] = sent;
      expect(event).toMatchObject({ samplingIntervalMs: 100, context: "feed", duration: 2000 });
      expect(event?.positions).toHaveLength(20);
      expect(event?.positions.slice(0, 2)).toEqual([
        { x: 9, y: 18, t: 100 },
        { x: 19, y: 38, t: 200 },
      ]);
    });

    it("takes no sample while the mouse rests, and stops its timers after an idle window", () => {
      const sent: Payloads["MOUSE_MOVEMENT"][] = [];
      const mouse = new MouseSampler({ emit: (p) => sent.push(p), context: "watch" });
      mouse.move(5, 5);
      vi.advanceTimersByTime(2000);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.positions).toEqual([{ x: 5, y: 5, t: 100 }]);
      expect(vi.getTimerCount()).toBe(2);
      vi.advanceTimersByTime(2000);
      expect(sent).toHaveLength(1);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("sends a partial window on flush (page exit)", () => {
      const sent: Payloads["MOUSE_MOVEMENT"][] = [];
      const mouse = new MouseSampler({ emit: (p) => sent.push(p), context: "feed" });
      mouse.move(1, 1);
      vi.advanceTimersByTime(350);
      mouse.move(2, 2);
      mouse.flush();
      expect(sent).toEqual([
        {
          positions: [
            { x: 1, y: 1, t: 100 },
            { x: 2, y: 2, t: 350 },
          ],
          samplingIntervalMs: 100,
          context: "feed",
          duration: 350,
        },
      ]);
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  describe("SCROLL", () => {
    it("reports at most every 500 ms, always including where scrolling stopped", () => {
      const sent: Payloads["SCROLL"][] = [];
      let y = 0;
      const scroll = new ScrollTracker({
        emit: (p) => sent.push(p),
        read: () => ({ scrollY: y, pageHeight: 3000, viewportHeight: 1000 }),
      });
      // Scroll events every 20 ms for 1.2 s.
      for (let i = 0; i < 60; i++) {
        y += 10;
        scroll.scrolled();
        vi.advanceTimersByTime(20);
      }
      vi.advanceTimersByTime(1000);
      // t=0 (leading edge), t=500, t=1000, and t=1500 where scrolling stopped (trailing edge).
      expect(sent.map((s) => s.scrollY)).toEqual([10, 250, 500, 600]);
      expect(sent[2]).toEqual({ scrollY: 500, scrollPercent: 25, maxScrollPercent: 25, pageHeight: 3000 });
      // After a quiet period the first scroll is reported at once again.
      y = 700;
      scroll.scrolled();
      y = 710;
      scroll.scrolled();
      expect(sent.map((s) => s.scrollY)).toEqual([10, 250, 500, 600, 700]);
      vi.advanceTimersByTime(500);
      expect(sent.map((s) => s.scrollY)).toEqual([10, 250, 500, 600, 700, 710]);
    });

    it("keeps the deepest point as maxScrollPercent", () => {
      const sent: Payloads["SCROLL"][] = [];
      let y = 2000;
      const scroll = new ScrollTracker({
        emit: (p) => sent.push(p),
        read: () => ({ scrollY: y, pageHeight: 3000, viewportHeight: 1000 }),
      });
      scroll.scrolled();
      vi.advanceTimersByTime(600);
      y = 0;
      scroll.scrolled();
      expect(sent.map((s) => [s.scrollPercent, s.maxScrollPercent])).toEqual([
        [100, 100],
        [0, 100],
      ]);
    });
  });

  describe("VIEWPORT_VISIBILITY and impressions", () => {
    it("reports the visible cards every 3 s, and the cards that left with their exit time", () => {
      const sent: Payloads["VIEWPORT_VISIBILITY"][] = [];
      const viewport = new ViewportTracker({ emit: (p) => sent.push(p), context: "feed" });
      const a = {};
      const b = {};
      viewport.add(a, { videoId: "ext-a", position: 0 }, () => {});
      viewport.add(b, { videoId: "ext-b", position: 1 }, () => {});
      viewport.start();
      viewport.update(a, 1);
      viewport.update(b, 0.3);
      vi.advanceTimersByTime(2999);
      expect(sent).toHaveLength(0);
      vi.advanceTimersByTime(1);
      expect(sent).toEqual([
        {
          visibleItems: [
            { videoId: "ext-a", position: 0, visibilityRatio: 1, enterTime: T0 },
            { videoId: "ext-b", position: 1, visibilityRatio: 0.3, enterTime: T0 },
          ],
          context: "feed",
        },
      ]);
      vi.advanceTimersByTime(1000);
      viewport.update(a, 0);
      vi.advanceTimersByTime(2000);
      expect(sent[1]?.visibleItems).toEqual([
        { videoId: "ext-a", position: 0, visibilityRatio: 1, enterTime: T0, exitTime: T0 + 4000 },
        { videoId: "ext-b", position: 1, visibilityRatio: 0.3, enterTime: T0 },
      ]);
    });

    it("skips reports with nothing on screen and while the page is hidden", () => {
      const sent: unknown[] = [];
      let visible = true;
      const viewport = new ViewportTracker({
        emit: (p) => sent.push(p),
        context: "feed",
        isActive: () => visible,
      });
      const a = {};
      viewport.add(a, { videoId: "ext-a", position: 0 }, () => {});
      viewport.start();
      vi.advanceTimersByTime(3000);
      expect(sent).toHaveLength(0);
      viewport.update(a, 1);
      visible = false;
      vi.advanceTimersByTime(3000);
      expect(sent).toHaveLength(0);
      visible = true;
      vi.advanceTimersByTime(3000);
      expect(sent).toHaveLength(1);
    });

    it("fires an impression once a card is at least 50 % visible, once per mount", () => {
      const viewport = new ViewportTracker({ emit: () => {}, context: "feed" });
      const card = {};
      const impressions: string[] = [];
      viewport.add(card, { videoId: "ext-a", position: 3 }, () => impressions.push("a"));
      viewport.update(card, 0.49);
      expect(impressions).toEqual([]);
      viewport.update(card, 0.5);
      viewport.update(card, 0);
      viewport.update(card, 1);
      expect(impressions).toEqual(["a"]);
      // Mounted again: a new impression.
      viewport.remove(card);
      viewport.add(card, { videoId: "ext-a", position: 3 }, () => impressions.push("a2"));
      viewport.update(card, 0.8);
      expect(impressions).toEqual(["a", "a2"]);
    });
  });
});
