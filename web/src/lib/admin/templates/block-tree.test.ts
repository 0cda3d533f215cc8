import { describe, expect, it } from "vitest";
import {
  add,
  blockNode,
  drop,
  type Edit,
  type EditNode,
  fromTree,
  indent,
  outdent,
  outline,
  remove,
  setProp,
  shift,
  toTree,
} from "./block-tree.ts";

const tree = (e: Edit): EditNode => {
  if (!e.ok) throw new Error(e.reason);
  return e.tree;
};
const shape = (root: EditNode) => outline(root).map(({ node, depth }) => `${"  ".repeat(depth)}${node.type}`);
const idOf = (root: EditNode, type: string, nth = 0) =>
  (outline(root).filter(({ node }) => node.type === type)[nth]?.node.id ?? "") as string;

describe("the block editor's tree operations", () => {
  it("builds a two-column watch page by drops: into blocks that take children, after those that do not", () => {
    let t = fromTree({ type: "Page" });
    t = tree(drop(t, t.id, blockNode("SplitColumn"), "watch"));
    t = tree(drop(t, idOf(t, "SplitColumn"), blockNode("Stack"), "watch"));
    t = tree(drop(t, idOf(t, "Stack"), blockNode("Player"), "watch"));
    t = tree(drop(t, idOf(t, "Player"), blockNode("Title"), "watch"));
    t = tree(drop(t, idOf(t, "Stack"), blockNode("Likes"), "watch"));
    t = tree(drop(t, idOf(t, "SplitColumn"), blockNode("VideoList"), "watch"));
    t = tree(setProp(t, idOf(t, "VideoList"), "source", "related", "watch"));
    expect(shape(t)).toEqual([
      "Page",
      "  SplitColumn",
      "    Stack",
      "      Player",
      "      Title",
      "      Likes",
      "    VideoList",
    ]);
    expect(toTree(t)).toEqual({
      type: "Page",
      children: [
        {
          type: "SplitColumn",
          children: [
            { type: "Stack", children: [{ type: "Player" }, { type: "Title" }, { type: "Likes" }] },
            { type: "VideoList", props: { source: "related" } },
          ],
        },
      ],
    });
  });

  it("refuses what the page cannot have, saying why, and leaves the tree as it was", () => {
    const t = fromTree({
      type: "Page",
      children: [{ type: "VideoList", children: [{ type: "Thumbnail" }] }],
    });
    const player = add(t, idOf(t, "Thumbnail"), "Player", "watch");
    expect(player).toEqual({
      ok: false,
      reason: expect.stringMatching(/Player cannot be part of a video card/),
    });
    // Dropped on the list itself, a block the card cannot hold goes after the list.
    expect(shape(tree(add(t, idOf(t, "VideoList"), "Player", "watch")))).toEqual([
      "Page",
      "  VideoList",
      "    Thumbnail",
      "  Player",
    ]);
    expect(add(t, null, "Player", "feed")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/feed page/),
    });
    expect(setProp(t, idOf(t, "VideoList"), "source", "related", "feed")).toMatchObject({ ok: false });
    expect(remove(t, t.id)).toMatchObject({ ok: false });
    expect(drop(t, idOf(t, "VideoList"), t, "feed")).toMatchObject({ ok: false });
  });

  it("moves with the keyboard's operations: up, down, indent into the previous block, outdent", () => {
    let t = fromTree({ type: "Page", children: [{ type: "Text" }, { type: "Stack" }, { type: "Divider" }] });
    t = tree(shift(t, idOf(t, "Divider"), -1, "feed"));
    expect(shape(t)).toEqual(["Page", "  Text", "  Divider", "  Stack"]);
    expect(shift(t, idOf(t, "Text"), -1, "feed")).toEqual({ ok: false, reason: "It is already first." });
    t = tree(shift(t, idOf(t, "Divider"), 1, "feed"));
    t = tree(indent(t, idOf(t, "Divider"), "feed"));
    expect(shape(t)).toEqual(["Page", "  Text", "  Stack", "    Divider"]);
    expect(indent(t, idOf(t, "Stack"), "feed")).toEqual({ ok: false, reason: "Text cannot hold a Stack." });
    t = tree(outdent(t, idOf(t, "Divider"), "feed"));
    expect(shape(t)).toEqual(["Page", "  Text", "  Stack", "  Divider"]);
    t = tree(remove(t, idOf(t, "Stack")));
    expect(shape(t)).toEqual(["Page", "  Text", "  Divider"]);
  });

  it("sets a prop and, given undefined, goes back to the default", () => {
    let t = fromTree({ type: "Page" });
    t = tree(setProp(t, t.id, "theme", "dark", "feed"));
    expect(toTree(t)).toEqual({ type: "Page", props: { theme: "dark" } });
    t = tree(setProp(t, t.id, "theme", undefined, "feed"));
    expect(toTree(t)).toEqual({ type: "Page" });
    expect(setProp(t, t.id, "padding", 500, "feed")).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/between 0 and 96/),
    });
  });
});
