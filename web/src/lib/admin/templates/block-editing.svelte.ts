import type { BlockProp, BlockType } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { withBlockNames } from "./block-names.ts";
import {
  blockNode,
  check,
  drop,
  type Edit,
  type EditNode,
  indent,
  locate,
  outdent,
  outline,
  remove,
  setProp,
  shift,
} from "./block-tree.ts";

/** The drag data of a block: `new:<type>` from the palette, `move:<id>` from the tree. */
export const BLOCK_MIME = "application/x-feedlab-block";

/** What the tree's toolbar and keys do to the selected block. */
export type TreeAction = "up" | "down" | "indent" | "outdent" | "delete";

type Page = "feed" | "watch";

/**
 * The block editor's working state: the tree with its undo and redo stacks, the page it lays out,
 * the selected block, and the message saying why the last edit could not be made. Every change goes
 * through `apply`, which keeps the tree a valid layout of the page (block-tree.ts).
 */
export class BlockEditing {
  tree: EditNode;
  page: Page;
  selectedId: string | null = $state(null);
  /** Why the last edit was refused, in words; empty after one that was made. */
  message = $state("");
  #undo = $state.raw<EditNode[]>([]);
  #redo = $state.raw<EditNode[]>([]);

  /** The tree's rows in order, each with its depth. */
  readonly rows: { node: EditNode; depth: number }[];
  readonly selected: EditNode | null;

  constructor(tree: EditNode, page: Page) {
    this.tree = $state.raw(tree);
    this.page = $state(page);
    this.rows = $derived(outline(this.tree));
    this.selected = $derived(this.selectedId ? (locate(this.tree, this.selectedId)?.node ?? null) : null);
  }

  readonly canUndo = $derived(this.#undo.length > 0);
  readonly canRedo = $derived(this.#redo.length > 0);

  /** Applies an edit, or says why it cannot be made (the tree stays as it was). */
  apply(edit: Edit, select?: string): boolean {
    if (!edit.ok) {
      this.message = withBlockNames(edit.reason);
      return false;
    }
    this.#undo = [...this.#undo, this.tree].slice(-200);
    this.#redo = [];
    this.tree = edit.tree;
    this.message = "";
    if (select) this.selectedId = select;
    return true;
  }

  undo(): void {
    const previous = this.#undo.at(-1);
    if (!previous) return;
    this.#redo = [...this.#redo, this.tree];
    this.#undo = this.#undo.slice(0, -1);
    this.tree = previous;
    this.message = "";
  }

  redo(): void {
    const next = this.#redo.at(-1);
    if (!next) return;
    this.#undo = [...this.#undo, this.tree];
    this.#redo = this.#redo.slice(0, -1);
    this.tree = next;
    this.message = "";
  }

  /** A new block into the selected one (or the page), selected. */
  add(type: BlockType): void {
    const node = blockNode(type);
    this.apply(drop(this.tree, this.selectedId ?? this.tree.id, node, this.page), node.id);
  }

  /** What was dropped on a block of the tree: a new block from the palette, or a block moved. */
  dropOn(targetId: string, data: string): void {
    const [kind, value] = data.split(":") as [string, string];
    if (kind === "new") {
      const node = blockNode(value as BlockType);
      this.apply(drop(this.tree, targetId, node, this.page), node.id);
    } else if (kind === "move") {
      const moving = locate(this.tree, value)?.node;
      if (moving) this.apply(drop(this.tree, targetId, moving, this.page), moving.id);
    }
  }

  act(action: TreeAction): void {
    const id = this.selectedId;
    if (!id) {
      this.message = "Select a block in the tree first.";
      return;
    }
    if (action === "delete") {
      const parent = locate(this.tree, id)?.parent ?? null;
      if (this.apply(remove(this.tree, id))) this.selectedId = parent?.id ?? null;
    } else if (action === "up" || action === "down")
      this.apply(shift(this.tree, id, action === "up" ? -1 : 1, this.page));
    else if (action === "indent") this.apply(indent(this.tree, id, this.page));
    else this.apply(outdent(this.tree, id, this.page));
  }

  /** Selects the row `by` rows away from the selected one, within the tree. */
  selectNext(by: -1 | 1): void {
    const index = this.rows.findIndex((r) => r.node.id === this.selectedId);
    const next = Math.min(Math.max(index + by, 0), this.rows.length - 1);
    this.selectedId = this.rows[next]?.node.id ?? null;
  }

  /** Lays the tree out for the other page, when it is a valid layout of it; answers whether it was. */
  changePage(next: Page): boolean {
    const result = check(this.tree, next);
    if (!result.ok) {
      this.message = `This layout cannot be a ${next} page: ${withBlockNames(result.reason)}`;
      return false;
    }
    this.page = next;
    return true;
  }

  /** Sets a prop of the selected block from its input; a prop set to its default is left out. */
  setValue(prop: string, spec: BlockProp, raw: string | boolean): void {
    if (!this.selectedId) return;
    let value: unknown = raw;
    if (spec.type === "number") {
      value = Number(raw);
      if (raw === "" || !Number.isFinite(value)) return;
    }
    this.apply(
      setProp(this.tree, this.selectedId, prop, value === spec.default ? undefined : value, this.page),
    );
  }
}
