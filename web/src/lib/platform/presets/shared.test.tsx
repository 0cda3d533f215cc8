import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { describe, expect, it } from "vitest";
import type { Video } from "../../types.ts";
import { ViewsAndAge } from "./shared.tsx";

const video = {
  title: "Sourdough basics",
  view_count: 12_300,
  published_at: "2026-06-01T00:00:00.000Z",
} as const satisfies Partial<Video>;

const line = (v: Partial<Video>) =>
  renderToString(h(ViewsAndAge, { video: v as Video, className: "meta" })).replace(/<[^>]+>/g, "|");

describe("a preset card's views and age", () => {
  it("shows the views when the video has a count", () => {
    expect(line(video)).toMatch(/12(\.3)?K views/);
  });

  it("leaves the views out, not 0 views, when the video was imported without a count", () => {
    expect(line({ ...video, view_count: null })).not.toMatch(/view/);
    expect(line({ ...video, view_count: null })).toMatch(/ago/);
  });
});
