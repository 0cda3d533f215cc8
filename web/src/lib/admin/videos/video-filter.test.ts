import { describe, expect, it } from "vitest";
import type { Video } from "../../types.ts";
import { categoriesOf, filterVideos, NO_FILTER } from "./video-filter.ts";

const video = (id: string, over: Partial<Video>): Video =>
  ({
    id,
    external_id: id,
    url: "",
    resolved_url: "",
    type: "native",
    title: "",
    channel_name: null,
    category: null,
    description: null,
    tags: [],
    duration_seconds: null,
    view_count: null,
    thumbnail_url: null,
    published_at: null,
    comments: [],
    captions: [],
    created_at: "",
    updated_at: "",
    ...over,
  }) as Video;

const library = [
  video("a", { title: "Knots for sailors", category: "Outdoors", tags: ["rope"] }),
  video("b", { title: "Bread at home", channel_name: "Kitchen Lab", category: "Food" }),
  video("c", { title: "Sailing basics", type: "youtube", category: "Outdoors" }),
];

describe("filterVideos", () => {
  it("keeps every video with no filter, in order", () => {
    expect(filterVideos(library, NO_FILTER).map((v) => v.id)).toEqual(["a", "b", "c"]);
  });

  it("matches every word, in any case, across title, channel, tags and external id", () => {
    expect(filterVideos(library, { ...NO_FILTER, text: "SAIL" }).map((v) => v.id)).toEqual(["a", "c"]);
    expect(filterVideos(library, { ...NO_FILTER, text: "kitchen bread" }).map((v) => v.id)).toEqual(["b"]);
    expect(filterVideos(library, { ...NO_FILTER, text: "rope knots" }).map((v) => v.id)).toEqual(["a"]);
    expect(filterVideos(library, { ...NO_FILTER, text: "rope bread" })).toEqual([]);
  });

  it("narrows by type and category", () => {
    expect(filterVideos(library, { ...NO_FILTER, type: "youtube" }).map((v) => v.id)).toEqual(["c"]);
    expect(
      filterVideos(library, { text: "sail", type: "native", category: "Outdoors" }).map((v) => v.id),
    ).toEqual(["a"]);
  });

  it("lists a library's categories once each, sorted", () => {
    expect(categoriesOf(library)).toEqual(["Food", "Outdoors"]);
  });
});
