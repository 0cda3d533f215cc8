/**
 * The server's check of a block tree before it is saved (api.md `PUT /api/v1/admin/ui-templates/{id}`),
 * against the catalog: the problem it answers names the node's place in the tree.
 */
import { BLOCK_TYPES, BLOCKS, type BlockProp, type BlockSpec, type BlockType } from "./catalog.ts";

/** Where a node is in the tree, as `tree.children[0].children[2]` (`tree` is the root). */
export interface TreeProblem {
  readonly path: string;
  readonly message: string;
}

/** The largest tree accepted, in nodes. */
const MAX_TREE_NODES = 500;

const isBlock = (type: unknown): type is BlockType => typeof type === "string" && Object.hasOwn(BLOCKS, type);

/**
 * Checks a tree for a page: the root is a Page; every node is a known block with known props of the
 * right type and range; children only where the block takes them (a card's parts in a VideoList);
 * blocks that need the watch page's video only on the watch page. Returns the first problem, or null.
 */
export function checkTree(tree: unknown, page: "feed" | "watch"): TreeProblem | null {
  let nodes = 0;
  function visit(node: unknown, path: string, where: "root" | "blocks" | "card"): TreeProblem | null {
    const at = (message: string) => ({ path, message });
    if (++nodes > MAX_TREE_NODES) return at(`A tree may have at most ${MAX_TREE_NODES} blocks.`);
    if (node === null || typeof node !== "object" || Array.isArray(node))
      return at("A block is an object {type, props?, children?}.");
    const { type, props, children, ...rest } = node as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length > 0) return at(`Unknown field "${extra[0]}": a block has type, props and children.`);
    if (!isBlock(type)) return at(`Unknown block "${String(type)}". Blocks: ${BLOCK_TYPES.join(", ")}.`);
    const spec: BlockSpec = BLOCKS[type];
    if (where === "root" && type !== "Page") return at(`The root block must be a Page, not ${type}.`);
    if (where !== "root" && type === "Page") return at("A Page can only be the root block.");
    if (where === "card" && !spec.inCard)
      return at(
        `${type} cannot be part of a video card. Card parts: ${BLOCK_TYPES.filter((t) => (BLOCKS[t] as BlockSpec).inCard).join(", ")}.`,
      );
    if (where !== "card" && spec.video && page === "feed")
      return at(`${type} shows the watch page's video: on the feed page, put it inside a VideoList's card.`);
    if (
      type === "VideoList" &&
      page === "feed" &&
      (props as Record<string, unknown> | undefined)?.source === "related"
    )
      return at('Related videos belong to the watch page: on the feed page a VideoList shows source "feed".');
    if (props !== undefined) {
      if (props === null || typeof props !== "object" || Array.isArray(props))
        return at(`${type}'s props must be an object.`);
      for (const [name, value] of Object.entries(props)) {
        const prop = spec.props[name];
        if (!prop)
          return at(
            `${type} has no prop "${name}"${Object.keys(spec.props).length > 0 ? ` (its props: ${Object.keys(spec.props).join(", ")})` : ""}.`,
          );
        const wrong = propProblem(prop, value);
        if (wrong) return at(`${type}.${name} ${wrong}`);
      }
    }
    if (children !== undefined) {
      if (!Array.isArray(children)) return at(`${type}'s children must be an array.`);
      if (spec.children === "none" && children.length > 0) return at(`${type} takes no children.`);
      for (let i = 0; i < children.length; i++) {
        const problem = visit(
          children[i],
          `${path}.children[${i}]`,
          spec.children === "card" ? "card" : "blocks",
        );
        if (problem) return problem;
      }
    }
    return null;
  }
  return visit(tree, "tree", "root");
}

function propProblem(prop: BlockProp, value: unknown): string | null {
  switch (prop.type) {
    case "string":
      if (typeof value !== "string") return "must be text.";
      return prop.maxLength !== undefined && value.length > prop.maxLength
        ? `must be at most ${prop.maxLength} characters.`
        : null;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number.";
      return value < prop.min || value > prop.max ? `must be between ${prop.min} and ${prop.max}.` : null;
    case "boolean":
      return typeof value === "boolean" ? null : "must be true or false.";
    case "enum":
      return prop.values.includes(value as string)
        ? null
        : `must be one of ${prop.values.map((v) => `"${v}"`).join(", ")}.`;
  }
}
