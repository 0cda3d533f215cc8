import { type DefinitionProblem, defaultText, StudyDocument } from "@feedlab/schemas";
import {
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Document as YamlDocument,
} from "yaml";
import { HttpError } from "../http/errors.ts";
import { compileBody } from "../http/validation.ts";
import { documentDefaultLanguage } from "./arms-surveys.ts";

/** 422 `invalid_definition`: the document breaks the schema; `details` lists each problem where it is. */
export const invalidDefinition = (problems: readonly DefinitionProblem[]) => {
  const first = problems[0];
  const where = first?.line === undefined ? "" : ` (line ${first.line}, column ${first.column})`;
  return new HttpError(
    422,
    "invalid_definition",
    first ? `${first.path || "The document"}${where}: ${first.message}` : "The study document is invalid.",
    problems,
  );
};

const validate = compileBody<StudyDocument>(StudyDocument);

/** Splits `arms[1].algorithm.feed` into the keys of a YAML path: ["arms", 1, "algorithm", "feed"]. */
function pathKeys(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g))
    keys.push(m[2] !== undefined ? Number(m[2]) : (m[1] ?? ""));
  return keys;
}

/** Where a path of the document starts in its text: the deepest node on the path that exists. */
function locate(
  doc: YamlDocument | null,
  counter: LineCounter,
  path: string,
): { line?: number; column?: number } {
  if (!doc) return {};
  let node: unknown = doc.contents;
  let at: Node | null = (doc.contents as Node | null) ?? null;
  for (const key of pathKeys(path)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === key);
      if (!pair) break;
      // A field that should not be there: point at its key.
      at = (pair.key as Node | null) ?? at;
      node = pair.value;
      if (node && (isMap(node) || isSeq(node) || isScalar(node))) at = node as Node;
    } else if (isSeq(node) && typeof key === "number") {
      node = node.items[key];
      if (!node) break;
      at = node as Node;
    } else break;
  }
  const offset = at?.range?.[0];
  if (offset === undefined) return {};
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}

/** A parsed document, and how to tell where a path of it is written. */
export interface ParsedDefinition {
  readonly document: StudyDocument;
  readonly where: (path: string) => { line?: number; column?: number };
}

/**
 * Reads a study document from YAML or JSON text (JSON is YAML) or an object, and checks it against
 * the schema: 422 `invalid_definition` naming each problem's path, with line and column for text.
 */
export function parseDefinition(input: unknown): ParsedDefinition {
  let value: unknown = input;
  let doc: YamlDocument | null = null;
  const counter = new LineCounter();
  if (typeof input === "string") {
    doc = parseDocument(input, { lineCounter: counter, uniqueKeys: true, prettyErrors: true });
    if (doc.errors.length > 0) {
      throw invalidDefinition(
        doc.errors.map((e) => {
          const pos = e.linePos?.[0];
          return {
            path: "",
            ...(pos ? { line: pos.line, column: pos.col } : {}),
            message: e.message.split("\n")[0] ?? e.message,
          };
        }),
      );
    }
    value = doc.toJS({ maxAliasCount: 100 });
  }
  const where = (path: string) => locate(doc, counter, path);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw invalidDefinition([{ path: "", ...where(""), message: "must be a mapping with feedlab_study: 1" }]);
  }
  const checked = validate(value);
  if (!checked.ok)
    throw invalidDefinition(
      checked.problems.map((p) => ({ path: p.field, ...where(p.field), message: p.message })),
    );
  const document = checked.value;
  const problems = duplicateNames(document).map((p) => ({ ...p, ...where(p.path) }));
  if (problems.length > 0) throw invalidDefinition(problems);
  return { document, where };
}

/** Names are unique per kind of resource in a document (api.md): each repeat is a problem. */
function duplicateNames(doc: StudyDocument): { path: string; message: string }[] {
  const lists: [string, readonly { readonly [k: string]: unknown }[] | undefined, string][] = [
    ["arms", doc.arms, "name"],
    ["layouts", doc.layouts, "name"],
    ["recommenders", doc.recommenders, "key"],
    ["pool", doc.pool, "external_id"],
    // A survey with a name per language is found by its default language's (arms-surveys.ts).
    [
      "surveys",
      doc.surveys?.map((x) => ({ name: defaultText(x.name, documentDefaultLanguage(doc)) })),
      "name",
    ],
  ];
  const out: { path: string; message: string }[] = [];
  for (const [list, items, field] of lists) {
    const first = new Map<unknown, number>();
    (items ?? []).forEach((item, i) => {
      const name = item[field];
      const seen = first.get(name);
      if (seen === undefined) first.set(name, i);
      else
        out.push({
          path: `${list}[${i}].${field}`,
          message: `repeats ${list}[${seen}].${field} "${String(name)}"`,
        });
    });
  }
  return out;
}
