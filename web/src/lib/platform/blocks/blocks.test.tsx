import { BLOCK_TYPES, BLOCKS, type BlockSpec } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { Video } from "../../types.ts";
import { RuntimeContext } from "../context.ts";
import { previewRuntime } from "../preview-runtime.ts";
import * as blocks from "./index.tsx";

const video: Video = {
  id: "8c1f6a0e-1111-4a4a-9b9b-000000000001",
  external_id: "yt-sourdough",
  url: "/media/demo/sourdough-basics.webm",
  resolved_url: "/media/demo/sourdough-basics.webm",
  type: "native",
  title: "Sourdough basics",
  channel_name: "Crumb Lab",
  category: "Food",
  description: "Flour, water, salt.\nAnd time.",
  tags: ["bread", "baking"],
  duration_seconds: 754,
  view_count: 12_300,
  thumbnail_url: "/media/demo/sourdough-basics.jpg",
  published_at: "2026-06-01T00:00:00.000Z",
  comments: [{ author: "ana", text: "Great video!" }],
  captions: [],
  created_at: "2026-06-01T00:00:00.000Z",
  updated_at: "2026-06-01T00:00:00.000Z",
};

/** What each block shows of the sample video (or of its own default props), rendered with no props. */
const SHOWS: Record<string, RegExp> = {
  Page: /<main style="max-width:1280px;padding:16px;" class="fb-page">/,
  Stack: /class="fb-stack"/,
  Grid: /class="fb-grid"/,
  SplitColumn: /class="fb-split"/,
  Tabs: /role="tablist"/,
  Divider: /<hr style="margin:16px 0;" class="fb-divider"\/>/,
  Text: /Pick a video you would like to watch\./,
  // The feed's first heading: the page's h1.
  VideoList: /<section class="fb-videos"><h1 class="fb-sr">Recommended videos<\/h1>/,
  Thumbnail: /<img src="\/media\/demo\/sourdough-basics.jpg"[^>]*>.*12:34/,
  Title: /<h3 class="fb-title fb-title--medium"><bdi>Sourdough basics<\/bdi><\/h3>/,
  Channel: /Crumb Lab/,
  Views: /12(\.3)?K views/,
  Published: /ago/,
  Tags: /#bread.*#baking/,
  Description: /Flour, water, salt\./,
  Likes: /Like.*Dislike/,
  Actions: /class="fb-actions"/,
  Comments: /Comments \(1\).*Great video!/,
  Player: /class="fb-player"/,
};

/** `h` over the blocks, whose props types come from the compat layer's JSX types. */
const el = h as unknown as (type: unknown, props?: object | null, ...children: unknown[]) => VNode;

/** The headings of rendered HTML, as "h<level> <text>". */
/** Each heading's level and text (its markup, such as a title's `bdi`, left out). */
const headings = (html: string) =>
  [...html.matchAll(/<h([1-6])[^>]*>(.*?)<\/h\1>/g)].map(
    ([, level, text]) => `h${level} ${text?.replace(/<[^>]+>/g, "")}`,
  );

const render = (node: VNode) =>
  renderToString(el(RuntimeContext.Provider, { value: previewRuntime([video], () => {}) }, node));

describe("@feedlab/blocks", () => {
  it("exports a component for each of the catalog's 19 blocks", () => {
    for (const type of BLOCK_TYPES) expect(typeof (blocks as Record<string, unknown>)[type]).toBe("function");
  });

  it("registers each block type's component, its props typed from the catalog", () => {
    expect(Object.keys(blocks.BLOCK_COMPONENTS)).toEqual(BLOCK_TYPES);
    for (const type of BLOCK_TYPES)
      expect(blocks.BLOCK_COMPONENTS[type]).toBe((blocks as Record<string, unknown>)[type]);
    expectTypeOf<blocks.TitleProps["size"]>().toEqualTypeOf<"medium" | "small" | "large" | undefined>();
    expectTypeOf<blocks.VideoListProps["more"]>().toEqualTypeOf<
      "on scroll" | "button" | "none" | undefined
    >();
    expectTypeOf<blocks.GridProps["columns"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<blocks.LikesProps>().toEqualTypeOf<{ readonly showDislike?: boolean }>();
  });

  it.each(BLOCK_TYPES)("renders %s with no props", (type) => {
    const Block = (blocks as unknown as Record<string, (props: object) => unknown>)[type] as never;
    const spec = BLOCKS[type] as BlockSpec;
    // Layout blocks get one Text to hold; a video's parts show the sample video, as in a card.
    const inner = spec.children === "blocks" ? el(blocks.Text, {}) : null;
    const block = el(Block, {}, inner);
    const html =
      type === "Page"
        ? render(block)
        : render(el(blocks.Page, {}, spec.video ? el(blocks.VideoScope, { video }, block) : block));
    expect(html, html).toMatch(SHOWS[type] as RegExp);
  });

  it("makes a feed's first heading its one h1, with the list's heading and its cards' titles below it", () => {
    const card = el(blocks.VideoScope, { video }, el(blocks.Title, {}));
    const headed = render(
      el(
        blocks.Page,
        {},
        el(blocks.Text, { style: "heading", text: "Pick one" }),
        el(blocks.Stack, {}, el(blocks.Text, { style: "heading", text: "Later" })),
        el(blocks.VideoList, {}),
        card,
      ),
    );
    expect(headings(headed)).toEqual([
      "h1 Pick one",
      "h2 Later",
      "h2 Recommended videos",
      "h3 Sourdough basics",
    ]);
    // A list first is the h1 itself; a page with neither gets a hidden one.
    expect(headings(render(el(blocks.Page, {}, el(blocks.Stack, {}, el(blocks.VideoList, {})))))).toEqual([
      "h1 Recommended videos",
    ]);
    expect(headings(render(el(blocks.Page, {}, el(blocks.Divider, {}))))).toEqual(["h1 Videos"]);
  });

  it("gives a watch page without a Title block its video's title as a hidden h1, and one with a Title no other", () => {
    const page = (...children: VNode[]) => render(el(blocks.Page, { videoId: video.id }, ...children));
    expect(headings(page(el(blocks.Player, {}), el(blocks.Comments, {})))).toEqual(["h1 Video"]);
    expect(headings(page(el(blocks.Stack, {}, el(blocks.Player, {}), el(blocks.Title, {}))))).toEqual([]);
  });

  it("shows each tab's title and only the first tab's content at first", () => {
    const html = render(
      el(
        blocks.Tabs,
        { titles: "Videos, About" },
        el(blocks.Text, { text: "one" }),
        el(blocks.Text, { text: "two" }),
      ),
    );
    expect(html).toMatch(/aria-selected="true"[^>]*>Videos</);
    expect(html).toMatch(/aria-selected="false"[^>]*>About</);
    expect(html).toMatch(/<div role="tabpanel"[^>]*><p class="fb-text">one/);
    expect(html).toMatch(/<div role="tabpanel"[^>]*hidden[^>]*><p class="fb-text">two/);
  });
});
