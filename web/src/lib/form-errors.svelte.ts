import { handleError } from "./handle-error.ts";
import { ApiError } from "./participant-api.ts";

/** Statuses whose message is about the submitted form (bad input or a conflict), shown inline. */
const FORM_STATUSES = new Set([400, 409, 413, 422]);

/**
 * Validation state of one form. A 4xx about the input is shown in the form: next to the field named by
 * `error.details.field` when the form has that field, else above the form. Anything else (401, network,
 * 5xx) goes to the app-wide `handleError` (a toast, or the sign-in page for a 401 in the console).
 */
export class FormErrors<Field extends string> {
  fields = $state<Partial<Record<Field, string>>>({});
  general = $state<string | null>(null);
  readonly #known: ReadonlySet<string>;

  constructor(fields: readonly Field[]) {
    this.#known = new Set(fields);
  }

  clear(): void {
    this.fields = {};
    this.general = null;
  }

  /** Records `error` for display; `whatFailed` prefixes messages that are not about a field. */
  set(error: unknown, whatFailed: string): void {
    this.clear();
    if (error instanceof ApiError && FORM_STATUSES.has(error.status)) {
      const field = this.#match(error.field);
      if (field) this.fields = { [field]: error.message } as Partial<Record<Field, string>>;
      else this.general = `${whatFailed}: ${error.message}`;
      return;
    }
    handleError(error, whatFailed);
  }

  /** Marks a field invalid from client-side validation. */
  setField(field: Field, message: string): void {
    this.fields = { ...this.fields, [field]: message };
  }

  get hasErrors(): boolean {
    return this.general !== null || Object.keys(this.fields).length > 0;
  }

  /** The form field a server field path belongs to: exact, or a parent (`videos[0].title` -> `title`). */
  #match(serverField: string | undefined): Field | undefined {
    if (!serverField) return undefined;
    if (this.#known.has(serverField)) return serverField as Field;
    const leaf = serverField.replace(/^.*\]\./, "");
    if (this.#known.has(leaf)) return leaf as Field;
    return undefined;
  }
}
