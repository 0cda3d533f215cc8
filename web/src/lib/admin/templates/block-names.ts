import { BLOCK_TYPES, type BlockType } from "@feedlab/schemas/ui/blocks/catalog.ts";

/**
 * The blocks as the editor names them to researchers. The identifiers (`VideoList`, `SplitColumn`)
 * are for code: the tree's JSON and its TSX export keep them.
 */
const BLOCK_NAMES: Readonly<Record<BlockType, string>> = {
  Page: "Page",
  Stack: "Stack",
  Grid: "Grid",
  SplitColumn: "Two columns",
  Tabs: "Tabs",
  Divider: "Divider",
  Text: "Text",
  VideoList: "Video list",
  Thumbnail: "Thumbnail",
  Title: "Title",
  Channel: "Channel",
  Views: "Views",
  Published: "Publication date",
  Tags: "Tags",
  Description: "Description",
  Likes: "Like buttons",
  Actions: "Actions row",
  Comments: "Comments",
  Player: "Player",
};

export const blockName = (type: BlockType): string => BLOCK_NAMES[type];

const IDENTIFIER = new RegExp(`\\b(${BLOCK_TYPES.join("|")})\\b`, "g");

/**
 * A message that names blocks by identifier (the catalog's checks do: "Player cannot be part of a
 * video card"), with the names the editor shows instead.
 */
export function withBlockNames(message: string): string {
  return message.replace(IDENTIFIER, (type) => BLOCK_NAMES[type as BlockType] ?? type);
}

/** A setting's label without its explanation in parentheses, for the tree's one-line summaries. */
export function shortLabel(label: string): string {
  return label.replace(/\s*\([^)]*\)\s*$/, "");
}
