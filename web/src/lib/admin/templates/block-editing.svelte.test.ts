import { BLOCKS } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { describe, expect, it } from "vitest";
import { BlockEditing } from "./block-editing.svelte.ts";
import { fromTree, toTree } from "./block-tree.ts";

const feed = () => new BlockEditing(fromTree({ type: "Page" }), "feed");

describe("BlockEditing", () => {
  it("adds a block into the page, selects it, and undoes and redoes the addition", () => {
    const editing = feed();
    editing.add("Text");
    expect(toTree(editing.tree).children?.map((c) => c.type)).toEqual(["Text"]);
    expect(editing.selected?.type).toBe("Text");
    expect(editing.canUndo).toBe(true);
    editing.undo();
    expect(toTree(editing.tree).children ?? []).toEqual([]);
    expect(editing.canRedo).toBe(true);
    editing.redo();
    expect(editing.rows.map((r) => [r.node.type, r.depth])).toEqual([
      ["Page", 0],
      ["Text", 1],
    ]);
  });

  it("refuses an edit with its reason and leaves the tree as it was", () => {
    const editing = feed();
    editing.act("up");
    expect(editing.message).toBe("Select a block in the tree first.");
    editing.selectedId = editing.tree.id;
    const before = editing.tree;
    editing.act("delete");
    expect(editing.tree).toBe(before);
    expect(editing.message).toBe("The Page is the root of every layout: it stays.");
    expect(editing.canUndo).toBe(false);
  });

  it("keeps the page when the tree is no layout of the other page, and says why", () => {
    const editing = new BlockEditing(fromTree({ type: "Page", children: [{ type: "Player" }] }), "watch");
    expect(editing.changePage("feed")).toBe(false);
    expect(editing.page).toBe("watch");
    expect(editing.message).toMatch(/^This layout cannot be a feed page: /);
  });

  it("leaves out a prop set back to its default", () => {
    const editing = feed();
    editing.add("Text");
    const style = BLOCKS.Text.props.style;
    editing.setValue("style", style, "heading");
    expect(editing.selected?.props).toEqual({ style: "heading" });
    editing.setValue("style", style, "paragraph");
    expect(editing.selected?.props).toEqual({});
  });
});
