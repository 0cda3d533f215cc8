/** The page content blocks (the catalog's group "page"): text for participants and dividers. */
import type { BlockProps } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { withDefaults } from "./scope.tsx";

export type DividerProps = BlockProps<"Divider">;

export function Divider(props: DividerProps) {
  const p = withDefaults("Divider", props);
  return <hr className="fb-divider" style={{ margin: `${p.spacing}px 0` }} />;
}

export type TextProps = BlockProps<"Text"> & {
  /** Set by the Page: the first heading of a feed page is its h1. */
  headingLevel?: 1 | 2;
};

export function Text(props: TextProps) {
  const p = withDefaults("Text", props);
  if (p.style === "heading")
    return props.headingLevel === 1 ? (
      <h1 className="fb-heading">{p.text}</h1>
    ) : (
      <h2 className="fb-heading">{p.text}</h2>
    );
  return <p className={p.style === "note" ? "fb-note" : "fb-text"}>{p.text}</p>;
}
