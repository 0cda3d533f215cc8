import { isDeepStrictEqual } from "node:util";
import type { DefinitionProblem, StudyChange } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { HttpError } from "../http/errors.ts";

/** Fields no document holds: ids, clocks, counts and what the server derives. */
const DERIVED = new Set([
  "id",
  "experiment_id",
  "created_at",
  "updated_at",
  "version",
  "used_by",
  "last_render_error",
  "participant_count",
  "simulated_participant_count",
  "question_count",
  "response_count",
  "dismissal_count",
  "resolved_url",
  "type",
]);

/** The fields whose values differ between two representations of a resource (derived ones aside). */
function changedFields(before: object, after: object): string[] {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  return [...new Set([...Object.keys(b), ...Object.keys(a)])]
    .filter((k) => !DERIVED.has(k) && !isDeepStrictEqual(b[k], a[k]))
    .sort();
}

/**
 * What a run of a document gathers: the changes, resource by resource; the console's refusals; and
 * the problems that make the document invalid (a service's 422, found where the document says it).
 */
export class Ledger {
  readonly changes: StudyChange[] = [];
  readonly problems: DefinitionProblem[] = [];
  private savepoints = 0;
  private readonly trx: Db;
  private readonly where: (path: string) => { line?: number; column?: number };

  constructor(trx: Db, where: (path: string) => { line?: number; column?: number }) {
    this.trx = trx;
    this.where = where;
  }

  get refusals(): StudyChange[] {
    return this.changes.filter((c) => c.action === "refused");
  }

  add(change: StudyChange): void {
    this.changes.push(change);
  }

  problem(path: string, message: string): void {
    this.problems.push({ path, ...this.where(path), message });
  }

  /**
   * Runs one change of the console's in a savepoint: a refusal (409) is noted and undone, as is a
   * 422, noted as a problem at `path` (its field mapped into the document by `field`). Answers what
   * `fn` answered, or undefined when refused or invalid.
   */
  async attempt<T>(
    what: Pick<StudyChange, "resource" | "name">,
    path: string,
    fn: () => Promise<T>,
    field: (apiField: string) => string = (f) => f,
  ): Promise<T | undefined> {
    const name = `study_step_${++this.savepoints}`;
    await this.trx.raw(`savepoint ${name}`);
    try {
      const out = await fn();
      await this.trx.raw(`release savepoint ${name}`);
      return out;
    } catch (err) {
      await this.trx.raw(`rollback to savepoint ${name}`);
      if (!(err instanceof HttpError)) throw err;
      if (err.status === 409) {
        this.add({ ...what, action: "refused", reason: err.message, code: err.code });
        return undefined;
      }
      if (err.status === 422 || err.status === 400) {
        const details = err.details as {
          field?: string;
          problems?: { field: string; message: string }[];
        } | null;
        const problems = details?.problems ?? [{ field: details?.field ?? "", message: err.message }];
        for (const p of problems) {
          const mapped = p.field ? field(p.field) : "";
          this.problem(mapped ? `${path}.${mapped}` : path, p.field ? p.message : err.message);
        }
        return undefined;
      }
      throw err;
    }
  }

  /**
   * Changes an existing resource and tells whether anything changed: `change` runs in a savepoint,
   * then the representation is read again; when no field differs, the step is undone (no clock moves,
   * no change is recorded) and the resource is unchanged.
   */
  async update<T extends object>(
    what: Pick<StudyChange, "resource" | "name">,
    path: string,
    read: () => Promise<T>,
    change: () => Promise<unknown>,
    field?: (apiField: string) => string,
    reason?: string,
    /** What it was before, when an earlier step of the same change already ran. */
    earlier?: object,
  ): Promise<boolean> {
    const before = earlier ?? (await read());
    const name = `study_check_${++this.savepoints}`;
    await this.trx.raw(`savepoint ${name}`);
    const done = await this.attempt(
      what,
      path,
      async () => {
        await change();
        return true;
      },
      field,
    );
    if (!done) {
      await this.trx.raw(`release savepoint ${name}`);
      return false;
    }
    // In the document's words (an arm's `algorithm`, not the console's `algorithm_config`).
    const fields = changedFields(before, await read()).map(field ?? ((f) => f));
    if (fields.length === 0) {
      await this.trx.raw(`rollback to savepoint ${name}`);
      this.add({ ...what, action: "unchanged", ...(reason ? { reason } : {}) });
      return false;
    }
    await this.trx.raw(`release savepoint ${name}`);
    this.add({ ...what, action: "update", fields, ...(reason ? { reason } : {}) });
    return true;
  }
}
