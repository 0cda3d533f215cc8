import * as esbuild from "esbuild-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { compileWith } from "../compile.ts";
import { BLOCK_TYPES, BLOCKS, type BlockNode, type BlockSpec } from "./catalog.ts";
import { checkTree } from "./check-tree.ts";
import { starterTree } from "./starter-tree.ts";
import { treeToTsx } from "./tree-to-tsx.ts";

/** The smallest tree that holds `type` where it belongs: in a card, on the watch page, or in the page. */
function treeWith(type: string): { tree: BlockNode; page: "feed" | "watch" } {
  const spec = BLOCKS[type as keyof typeof BLOCKS] as BlockSpec;
  if (type === "Page") return { tree: { type: "Page", props: {} }, page: "feed" };
  if (spec.inCard)
    return {
      tree: { type: "Page", children: [{ type: "VideoList", children: [{ type, props: {} }] }] },
      page: "feed",
    };
  return { tree: { type: "Page", children: [{ type, props: {} }] }, page: spec.video ? "watch" : "feed" };
}

describe("the block catalog", () => {
  beforeAll(async () => {
    await esbuild.initialize({});
  });

  it("has the spec's 15 named blocks and four more, 19 in all", () => {
    const named = [
      "Page",
      "Stack",
      "Grid",
      "SplitColumn",
      "Tabs",
      "VideoList",
      "Thumbnail",
      "Title",
      "Channel",
    ];
    const more = ["Views", "Likes", "Description", "Tags", "Actions", "Comments"];
    expect(BLOCK_TYPES).toHaveLength(19);
    expect(BLOCK_TYPES).toEqual(expect.arrayContaining([...named, ...more]));
    expect(BLOCK_TYPES.filter((t) => ![...named, ...more].includes(t)).sort()).toEqual([
      "Divider",
      "Player",
      "Published",
      "Text",
    ]);
  });

  it.each(BLOCK_TYPES)(
    "accepts %s with empty props, and its export compiles with the server's compiler",
    async (type) => {
      const { tree, page } = treeWith(type);
      expect(checkTree(tree, page)).toBeNull();
      const tsx = treeToTsx(tree, page);
      expect(tsx).toContain(`<${type}`);
      expect(await compileWith(esbuild, tsx)).toMatchObject({ ok: true });
    },
  );

  it("exports props that differ from their defaults as JSX attributes, and a watch page passes its video", () => {
    const tree: BlockNode = {
      type: "Page",
      props: { theme: "dark", padding: 16 },
      children: [
        { type: "Text", props: { text: 'Say "hi" {now}', style: "note" } },
        { type: "Player", props: { autoplay: false } },
        { type: "Likes", props: { showDislike: true } },
      ],
    };
    expect(treeToTsx(tree, "watch")).toBe(
      [
        "// A watch page laid out with blocks, exported from Feedlab's block editor.",
        'import { Likes, Page, Player, Text } from "@feedlab/blocks";',
        'import type { WatchLayoutProps } from "@feedlab/data";',
        "",
        "export default function Layout({ videoId }: WatchLayoutProps) {",
        "  return (",
        '    <Page videoId={videoId} theme="dark">',
        '      <Text text={"Say \\"hi\\" {now}"} style="note" />',
        "      <Player autoplay={false} />",
        "      <Likes />",
        "    </Page>",
        "  );",
        "}",
        "",
      ].join("\n"),
    );
  });

  it.each(["feed", "watch"] as const)(
    "starts a new %s layout with a tree that checks and compiles",
    async (page) => {
      const tree = starterTree(page);
      expect(checkTree(tree, page)).toBeNull();
      expect(await compileWith(esbuild, treeToTsx(tree, page))).toMatchObject({ ok: true });
    },
  );

  it.each([
    [
      "an unknown block",
      { type: "Page", children: [{ type: "Carousel" }] },
      "feed",
      "tree.children[0]",
      /Unknown block "Carousel"/,
    ],
    ["a root that is not a Page", { type: "Stack" }, "feed", "tree", /root block must be a Page/],
    [
      "a Page inside the tree",
      { type: "Page", children: [{ type: "Page" }] },
      "feed",
      "tree.children[0]",
      /only be the root/,
    ],
    [
      "a prop of the wrong type",
      { type: "Page", children: [{ type: "Grid", props: { gap: "wide" } }] },
      "feed",
      "tree.children[0]",
      /Grid.gap must be a number/,
    ],
    [
      "a number out of range",
      { type: "Page", props: { padding: 500 } },
      "feed",
      "tree",
      /Page.padding must be between 0 and 96/,
    ],
    [
      "an unknown prop",
      { type: "Page", children: [{ type: "Views", props: { big: true } }] },
      "watch",
      "tree.children[0]",
      /Views has no prop "big"/,
    ],
    [
      "a value outside an enum",
      { type: "Page", children: [{ type: "Stack", props: { direction: "diagonal" } }] },
      "feed",
      "tree.children[0]",
      /must be one of "vertical", "horizontal"/,
    ],
    [
      "children where the block takes none",
      { type: "Page", children: [{ type: "Text", children: [{ type: "Divider" }] }] },
      "feed",
      "tree.children[0]",
      /Text takes no children/,
    ],
    [
      "a card part that cannot be in a card",
      { type: "Page", children: [{ type: "VideoList", children: [{ type: "Title" }, { type: "Player" }] }] },
      "watch",
      "tree.children[0].children[1]",
      /Player cannot be part of a video card/,
    ],
    [
      "the watch page's player on the feed page",
      { type: "Page", children: [{ type: "Stack", children: [{ type: "Player" }] }] },
      "feed",
      "tree.children[0].children[0]",
      /on the feed page, put it inside a VideoList/,
    ],
    [
      "related videos on the feed page",
      { type: "Page", children: [{ type: "VideoList", props: { source: "related" } }] },
      "feed",
      "tree.children[0]",
      /Related videos belong to the watch page/,
    ],
    ["a field a block does not have", { type: "Page", style: {} }, "feed", "tree", /Unknown field "style"/],
  ] as const)("refuses %s, naming the node's path", (_, tree, page, path, message) => {
    const problem = checkTree(tree, page);
    expect(problem?.path).toBe(path);
    expect(problem?.message).toMatch(message);
  });
});
