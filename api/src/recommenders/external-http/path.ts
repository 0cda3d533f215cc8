/**
 * video_id_path: a dotted path into the response JSON that locates the list of video ids
 * (spec: "Outbound call to an external recommender").
 *
 * - Segments are separated by dots; keys containing a dot cannot be addressed.
 * - A name segment reads that property of an object (`data.recommendations`).
 * - `*` iterates the elements of a list: `items.*.video_id` gives the `video_id` of each element.
 *   Elements lacking the rest of the path are skipped.
 * - A segment of digits on a list reads that element (`pages.0.ids`).
 * - Without `*`, the value at the path must itself be a list; with `*`, the values collected form it.
 *   Anything else (a string, an object, a missing key) is "not a list".
 */
type PathSegment = { readonly kind: "key"; readonly name: string } | { readonly kind: "each" };

export type ParsedPath = readonly PathSegment[];

/** Parses a path; returns the problem as a sentence when it is not one. */
export function parseIdPath(path: string): { ok: true; path: ParsedPath } | { ok: false; message: string } {
  if (path.trim() !== path || path === "")
    return { ok: false, message: "must be a dotted path like video_ids" };
  const parts = path.split(".");
  if (parts.some((p) => p === ""))
    return { ok: false, message: "has an empty segment (two dots, or a dot at an end)" };
  return {
    ok: true,
    path: parts.map((p): PathSegment => (p === "*" ? { kind: "each" } : { kind: "key", name: p })),
  };
}

function step(values: readonly unknown[], segment: PathSegment): unknown[] {
  const out: unknown[] = [];
  for (const v of values) {
    if (segment.kind === "each") {
      if (Array.isArray(v)) out.push(...v);
    } else if (Array.isArray(v)) {
      if (/^\d+$/.test(segment.name)) {
        const i = Number(segment.name);
        if (i < v.length) out.push(v[i]);
      }
    } else if (v !== null && typeof v === "object" && Object.hasOwn(v, segment.name)) {
      out.push((v as Record<string, unknown>)[segment.name]);
    }
  }
  return out;
}

/**
 * The list the path locates in `json`, or `null` when it resolves to something that is not a list
 * (including a `*` that meets no list at all).
 */
export function resolveIdPath(json: unknown, path: ParsedPath): unknown[] | null {
  let values: unknown[] = [json];
  let iterated = false;
  for (const segment of path) {
    if (segment.kind === "each") {
      if (!values.some(Array.isArray)) return null;
      iterated = true;
    }
    values = step(values, segment);
  }
  if (iterated) return values;
  const [only] = values;
  return values.length === 1 && Array.isArray(only) ? only : null;
}
