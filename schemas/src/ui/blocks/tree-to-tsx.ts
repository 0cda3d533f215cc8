/**
 * A block tree as code: the TSX module the export answers and the code track accepts, so a layout
 * begun with blocks can be carried on in code.
 */
import { BLOCKS, type BlockNode, type BlockSpec, type BlockType } from "./catalog.ts";

/** A prop as a JSX attribute. */
function attribute(name: string, value: unknown): string {
  if (value === true) return name;
  if (typeof value === "string" && /^[^"\\{}<>&\n\r]*$/.test(value)) return `${name}="${value}"`;
  return `${name}={${JSON.stringify(value)}}`;
}

/**
 * A checked tree as a standalone TSX module: imports from `@feedlab/blocks`, default export the page.
 * The code track accepts it as it is, and it renders the same page (participants load exactly this,
 * compiled). Props equal to their defaults are left out.
 */
export function treeToTsx(tree: BlockNode, page: "feed" | "watch"): string {
  const used = new Set<string>();
  function jsx(node: BlockNode, indent: string): string {
    used.add(node.type);
    const spec = BLOCKS[node.type as BlockType] as BlockSpec;
    const attrs = Object.entries(node.props ?? {})
      .filter(([name, value]) => spec.props[name]?.default !== value)
      .map(([name, value]) => attribute(name, value));
    if (node.type === "Page" && page === "watch") attrs.unshift("videoId={videoId}");
    const open = [node.type, ...attrs].join(" ");
    const children = node.children ?? [];
    if (children.length === 0) return `${indent}<${open} />`;
    return `${indent}<${open}>\n${children.map((c) => jsx(c, `${indent}  `)).join("\n")}\n${indent}</${node.type}>`;
  }
  const body = jsx(tree, "    ");
  const names = [...used].sort();
  const signature =
    page === "watch"
      ? "export default function Layout({ videoId }: WatchLayoutProps)"
      : "export default function Layout()";
  return [
    `// A ${page} page laid out with blocks, exported from Feedlab's block editor.`,
    `import { ${names.join(", ")} } from "@feedlab/blocks";`,
    ...(page === "watch" ? ['import type { WatchLayoutProps } from "@feedlab/data";'] : []),
    "",
    `${signature} {`,
    "  return (",
    body,
    "  );",
    "}",
    "",
  ].join("\n");
}
