import {
  BLOCKS,
  type BlockNode,
  type BlockSpec,
  type BlockType,
} from "@feedlab/schemas/ui/blocks/catalog.ts";
import { checkTree } from "@feedlab/schemas/ui/blocks/check-tree.ts";

/**
 * The block editor's tree: the stored `{type, props, children}` nodes with an id each, so the editor
 * can select, drag and move them. Every operation returns a new tree (the old one goes on the undo
 * stack) or a reason in words when the result would not be a valid layout of the page.
 */
export interface EditNode {
  readonly id: string;
  readonly type: BlockType;
  readonly props: Readonly<Record<string, unknown>>;
  readonly children: readonly EditNode[];
}

export type Edit =
  | { readonly ok: true; readonly tree: EditNode }
  | { readonly ok: false; readonly reason: string };

let nextId = 0;
const newId = () => `b${++nextId}`;

export const specOf = (type: BlockType): BlockSpec => BLOCKS[type] as BlockSpec;

/** A new node of a block, with no props (its defaults apply). */
export function blockNode(type: BlockType): EditNode {
  return { id: newId(), type, props: {}, children: [] };
}

export function fromTree(node: BlockNode): EditNode {
  return {
    id: newId(),
    type: node.type as BlockType,
    props: { ...(node.props ?? {}) },
    children: (node.children ?? []).map(fromTree),
  };
}

/** The tree as stored: props and children only where there are some. */
export function toTree(node: EditNode): BlockNode {
  return {
    type: node.type,
    ...(Object.keys(node.props).length > 0 ? { props: { ...node.props } } : {}),
    ...(node.children.length > 0 ? { children: node.children.map(toTree) } : {}),
  };
}

export interface Located {
  readonly node: EditNode;
  readonly parent: EditNode | null;
  readonly index: number;
  readonly depth: number;
}

export function locate(root: EditNode, id: string): Located | null {
  const visit = (node: EditNode, parent: EditNode | null, index: number, depth: number): Located | null => {
    if (node.id === id) return { node, parent, index, depth };
    for (let i = 0; i < node.children.length; i++) {
      const found = visit(node.children[i] as EditNode, node, i, depth + 1);
      if (found) return found;
    }
    return null;
  };
  return visit(root, null, 0, 0);
}

/** Every node in document order with its depth: the outline the editor shows. */
export function outline(root: EditNode): { node: EditNode; depth: number }[] {
  const out: { node: EditNode; depth: number }[] = [];
  const visit = (node: EditNode, depth: number) => {
    out.push({ node, depth });
    for (const child of node.children) visit(child, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** Whether a block of `type` may go inside `parent` (ignoring the page: `check` decides that). */
function accepts(parent: EditNode, type: BlockType): boolean {
  const spec = specOf(parent.type);
  if (spec.children === "none") return false;
  if (spec.children === "card") return specOf(type).inCard === true;
  return type !== "Page";
}

function replaceNode(root: EditNode, id: string, make: (node: EditNode) => EditNode): EditNode {
  if (root.id === id) return make(root);
  let changed = false;
  const children = root.children.map((child) => {
    const next = replaceNode(child, id, make);
    if (next !== child) changed = true;
    return next;
  });
  return changed ? { ...root, children } : root;
}

function without(root: EditNode, id: string): EditNode {
  const found = locate(root, id);
  if (!found?.parent) return root;
  const parent = found.parent;
  return replaceNode(root, parent.id, (p) => ({ ...p, children: p.children.filter((c) => c.id !== id) }));
}

function insertAt(root: EditNode, parentId: string, index: number, node: EditNode): EditNode {
  return replaceNode(root, parentId, (p) => {
    const children = [...p.children];
    children.splice(Math.max(0, Math.min(index, children.length)), 0, node);
    return { ...p, children };
  });
}

/** Accepts `tree` when it is a valid layout of `page`; else says why. */
export function check(tree: EditNode, page: "feed" | "watch"): Edit {
  const problem = checkTree(toTree(tree), page);
  return problem ? { ok: false, reason: problem.message } : { ok: true, tree };
}

/**
 * Puts `node` where a drop on `targetId` means: inside the target (last) when the target takes it,
 * else right after the target. `node` may already be in the tree (a move).
 */
export function drop(root: EditNode, targetId: string, node: EditNode, page: "feed" | "watch"): Edit {
  if (locate(node, targetId)) return { ok: false, reason: "A block cannot be put inside itself." };
  const base = without(root, node.id);
  const target = locate(base, targetId);
  if (!target) return { ok: false, reason: "That place is gone." };
  if (accepts(target.node, node.type))
    return check(insertAt(base, target.node.id, target.node.children.length, node), page);
  if (!target.parent) return { ok: false, reason: `${target.node.type} takes no ${node.type}.` };
  return check(insertAt(base, target.parent.id, target.index + 1, node), page);
}

/** Inserts a new block into the selected one (or after it when it takes none). */
export function add(
  root: EditNode,
  selectedId: string | null,
  type: BlockType,
  page: "feed" | "watch",
): Edit {
  return drop(root, selectedId ?? root.id, blockNode(type), page);
}

export function remove(root: EditNode, id: string): Edit {
  if (id === root.id) return { ok: false, reason: "The Page is the root of every layout: it stays." };
  return { ok: true, tree: without(root, id) };
}

/** Moves a block one place up (-1) or down (+1) among its siblings. */
export function shift(root: EditNode, id: string, delta: -1 | 1, page: "feed" | "watch"): Edit {
  const found = locate(root, id);
  if (!found?.parent) return { ok: false, reason: "The Page cannot move." };
  const to = found.index + delta;
  if (to < 0 || to >= found.parent.children.length)
    return { ok: false, reason: delta < 0 ? "It is already first." : "It is already last." };
  return check(insertAt(without(root, id), found.parent.id, to, found.node), page);
}

/** Moves a block into its previous sibling, as that block's last child. */
export function indent(root: EditNode, id: string, page: "feed" | "watch"): Edit {
  const found = locate(root, id);
  if (!found?.parent) return { ok: false, reason: "The Page cannot move." };
  const before = found.parent.children[found.index - 1];
  if (!before) return { ok: false, reason: "There is no block before it to go into." };
  if (!accepts(before, found.node.type))
    return { ok: false, reason: `${before.type} cannot hold a ${found.node.type}.` };
  return check(insertAt(without(root, id), before.id, before.children.length, found.node), page);
}

/** Moves a block out of its parent, right after it. */
export function outdent(root: EditNode, id: string, page: "feed" | "watch"): Edit {
  const found = locate(root, id);
  if (!found?.parent) return { ok: false, reason: "The Page cannot move." };
  const parent = locate(root, found.parent.id);
  if (!parent?.parent) return { ok: false, reason: "It is already directly in the Page." };
  return check(insertAt(without(root, id), parent.parent.id, parent.index + 1, found.node), page);
}

/** Sets one prop; `undefined` goes back to the default. */
export function setProp(
  root: EditNode,
  id: string,
  name: string,
  value: unknown,
  page: "feed" | "watch",
): Edit {
  return check(
    replaceNode(root, id, (n) => {
      const props = { ...n.props };
      if (value === undefined) delete props[name];
      else props[name] = value;
      return { ...n, props };
    }),
    page,
  );
}
