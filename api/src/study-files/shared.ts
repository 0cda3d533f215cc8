import type { StudyChange } from "@feedlab/schemas";
import type { Ledger } from "./step.ts";

/** How many suffixed copies of a shared resource are looked at before one more is made. */
const MAX_COPIES = 50;

/**
 * One shared resource (a layout, a recommender, a video): other experiments may use it, so applying
 * never changes one they use. Found by its name; copies carry the name suffixed.
 */
export interface Shared<V> {
  readonly resource: StudyChange["resource"];
  /** The name the document gives. */
  readonly name: string;
  /** Where the resource is in the document. */
  readonly path: string;
  /** The name of the nth copy (n from 1). */
  readonly copyName: (n: number) => string;
  /** The stored resources of a name (layouts' names need not be unique). */
  readonly find: (name: string) => Promise<V[]>;
  /** Whether an experiment other than the target uses it. */
  readonly usedElsewhere: (v: V) => Promise<string | null>;
  /** Whether it already is what the document says. */
  readonly same: (v: V) => boolean;
  readonly create: (name: string) => Promise<V>;
  /** Makes it what the document says (in place: one the target alone uses). */
  readonly update: (v: V) => Promise<unknown>;
  readonly read: (v: V) => Promise<object>;
  /** Maps a field the console's error names to the document's. */
  readonly field?: (apiField: string) => string;
}

/**
 * Places a shared resource, resource by resource as the plan says: one of its name (or of a copy's)
 * that already is what the document says is used as it is; else one only the target experiment uses
 * is changed; else a new copy is made, its name suffixed, and the plan says why. Answers the stored
 * resource, or undefined when the console refused or found the document's version invalid.
 */
export async function placeShared<V>(ledger: Ledger, s: Shared<V>): Promise<V | undefined> {
  const what = { resource: s.resource, name: s.name };
  const found: { name: string; v: V }[] = [];
  let free: string | null = null;
  for (let n = 0; n <= MAX_COPIES && free === null; n++) {
    const name = n === 0 ? s.name : s.copyName(n);
    const list = await s.find(name);
    if (list.length === 0) free = name;
    for (const v of list) found.push({ name, v });
  }
  const copyNote = (name: string) => (name === s.name ? {} : { reason: `uses the copy "${name}"` });
  const equal = found.find((f) => s.same(f.v));
  if (equal) {
    ledger.add({ ...what, action: "unchanged", ...copyNote(equal.name) });
    return equal.v;
  }
  let elsewhere: string | null = null;
  for (const f of found) {
    const user = await s.usedElsewhere(f.v);
    if (user === null) {
      await ledger.update(
        what,
        s.path,
        () => s.read(f.v),
        () => s.update(f.v),
        s.field,
        copyNote(f.name).reason,
      );
      return f.v;
    }
    elsewhere ??= user;
  }
  if (free === null) {
    ledger.problem(s.path, `has ${MAX_COPIES} copies already; rename it`);
    return undefined;
  }
  const name = free;
  const made = await ledger.attempt(what, s.path, () => s.create(name), s.field);
  if (made === undefined) return undefined;
  ledger.add({
    ...what,
    action: "create",
    ...(name === s.name
      ? {}
      : {
          reason: `"${s.name}" is used by another experiment (${elsewhere ?? "another study"}) and stays as it is: a copy named "${name}" is made`,
        }),
  });
  return made;
}
