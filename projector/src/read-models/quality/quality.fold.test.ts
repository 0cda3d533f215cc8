import { describe, expect, it } from "vitest";
import { EMPTY_FOLD, foldEvents, IDLE_CAP_MS, type TimedEvent } from "./quality.fold.ts";

let n = 0;
/** An event `s` seconds into the session, numbered in order. */
const at = (s: number, event_type: string, visible: boolean | null = null): TimedEvent => {
  n++;
  return { event_id: `e${String(n).padStart(4, "0")}`, event_type, at: s * 1000, seq: n, visible };
};

describe("the time accounting of a session", () => {
  it("counts visible and focused time as active, and hidden time in full", () => {
    // Given a page load, 10 s of use, 100 s hidden, 5 s back: active 10 + 5 = 15 s, hidden 100 s.
    const f = foldEvents(EMPTY_FOLD, [
      at(0, "PAGE_LOAD"),
      at(10, "VISIBILITY_CHANGE", false),
      at(110, "VISIBILITY_CHANGE", true),
      at(115, "PAGE_EXIT"),
    ]);
    expect(f).toMatchObject({ active_ms: 15_000, hidden_ms: 100_000, watch_ms: 0, open: false });
  });

  it("caps a silent interval of active time, and counts no time after the page's exit", () => {
    const f = foldEvents(EMPTY_FOLD, [
      at(0, "PAGE_LOAD"),
      at(100, "SCROLL"),
      at(101, "PAGE_EXIT"),
      at(500, "PAGE_LOAD"),
    ]);
    expect(f.active_ms).toBe(IDLE_CAP_MS + 1000);
  });

  it("leaves unfocused time out of active time", () => {
    const f = foldEvents(EMPTY_FOLD, [
      at(0, "PAGE_LOAD"),
      at(5, "WINDOW_BLUR"),
      at(25, "WINDOW_FOCUS"),
      at(27, "SCROLL"),
    ]);
    expect(f.active_ms).toBe(7000);
  });

  it("counts playback by the wall clock and the visible part of it apart", () => {
    // Playing from 0 to 20 s, hidden from 10 s: 20 s of playback, 10 s visible.
    const f = foldEvents(EMPTY_FOLD, [
      at(0, "VIDEO_PLAY"),
      at(5, "VIDEO_PROGRESS"),
      at(10, "VISIBILITY_CHANGE", false),
      at(15, "VIDEO_PROGRESS"),
      at(20, "VIDEO_PAUSE"),
      at(30, "VISIBILITY_CHANGE", true),
    ]);
    expect(f).toMatchObject({ watch_ms: 20_000, visible_watch_ms: 10_000, hidden_ms: 20_000 });
  });

  it("folds in two steps as in one", () => {
    const events = [
      at(0, "PAGE_LOAD"),
      at(4, "WINDOW_BLUR"),
      at(9, "WINDOW_FOCUS"),
      at(12, "VIDEO_PLAY"),
      at(20, "PAGE_EXIT"),
    ];
    expect(foldEvents(foldEvents(EMPTY_FOLD, events.slice(0, 2)), events.slice(2))).toEqual(
      foldEvents(EMPTY_FOLD, events),
    );
  });
});
