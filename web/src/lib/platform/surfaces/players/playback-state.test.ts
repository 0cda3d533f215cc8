import { describe, expect, it, vi } from "vitest";
import { PlaybackState } from "./playback-state.ts";

/** A player that stops when asked, the way a native element or a provider's API would. */
function fakePlayer(state: PlaybackState) {
  const player = {
    pauses: 0,
    handle: state.register(() => {
      player.pauses += 1;
    }),
  };
  return player;
}

describe("the playback state", () => {
  it("is playing while any player plays, and tells listeners only when that changes", () => {
    const state = new PlaybackState();
    const heard = vi.fn();
    state.subscribe(heard);
    const a = fakePlayer(state);
    const b = fakePlayer(state);
    expect(state.playing).toBe(false);

    a.handle.report(true);
    a.handle.report(true); // polled players repeat their state
    b.handle.report(true);
    expect(state.playing).toBe(true);
    a.handle.report(false);
    expect(state.playing).toBe(true);
    b.handle.report(false);

    expect(state.playing).toBe(false);
    expect(heard.mock.calls).toEqual([[true], [false]]);
  });

  it("forgets a released player, playing or not, and ignores what it reports afterwards", () => {
    const state = new PlaybackState();
    const heard = vi.fn();
    state.subscribe(heard);
    const a = fakePlayer(state);
    a.handle.report(true);

    a.handle.release();
    a.handle.report(true);

    expect(state.playing).toBe(false);
    expect(heard.mock.calls).toEqual([[true], [false]]);
  });

  it("while held, pauses a player that starts, and does not count it as playing", () => {
    const state = new PlaybackState();
    const heard = vi.fn();
    state.subscribe(heard);
    const a = fakePlayer(state);
    const release = state.hold();

    a.handle.report(true);
    a.handle.report(true); // the provider had not stopped yet at the next poll: asked again

    expect(a.pauses).toBe(2);
    expect(state.playing).toBe(false);
    expect(heard).not.toHaveBeenCalled();

    // Released, a start counts again.
    release();
    a.handle.report(true);
    expect(a.pauses).toBe(2);
    expect(state.playing).toBe(true);
  });

  it("pauses what plays when a hold begins", () => {
    const state = new PlaybackState();
    const heard = vi.fn();
    state.subscribe(heard);
    const a = fakePlayer(state);
    const b = fakePlayer(state);
    a.handle.report(true);

    state.hold();

    expect([a.pauses, b.pauses]).toEqual([1, 0]);
    expect(state.playing).toBe(false);
    expect(heard.mock.calls).toEqual([[true], [false]]);
  });

  it("holds nest, and releasing one twice releases it once", () => {
    const state = new PlaybackState();
    const a = fakePlayer(state);
    const first = state.hold();
    const second = state.hold();

    first();
    first();
    a.handle.report(true);
    expect(a.pauses).toBe(1);

    second();
    a.handle.report(true);
    expect(a.pauses).toBe(1);
    expect(state.playing).toBe(true);
  });

  it("a player whose pause throws (its iframe is gone) does not break the others", () => {
    const state = new PlaybackState();
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const broken = state.register(() => {
      throw new Error("player destroyed");
    });
    const a = fakePlayer(state);
    state.hold();

    broken.report(true);
    a.handle.report(true);

    expect(a.pauses).toBe(1);
    expect(state.playing).toBe(false);
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });

  it("stops telling a listener that unsubscribed", () => {
    const state = new PlaybackState();
    const heard = vi.fn();
    const stop = state.subscribe(heard);
    const a = fakePlayer(state);

    stop();
    a.handle.report(true);

    expect(heard).not.toHaveBeenCalled();
  });
});
