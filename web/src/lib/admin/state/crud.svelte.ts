import { handleError } from "../../handle-error.ts";
import { notifications } from "../../notifications.svelte.ts";

export interface CrudOptions<T> {
  /** What the console calls one item in its messages: "arm", "video". */
  readonly noun: string;
  /** The item's identity in the list (an id or a key). */
  readonly keyOf: (item: T) => string;
  /** The item as a researcher knows it (its name, title or key). */
  readonly nameOf: (item: T) => string;
  /** The list as shown, and how to replace it. */
  readonly items: () => readonly T[];
  readonly setItems: (items: T[]) => void;
  /** Deletes the item on the server. */
  readonly remove: (item: T) => Promise<unknown>;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The open / edit / confirm / delete / save state of a list in the console, shared by its sections
 * (arms, surveys, recommenders, videos): bind a dialog to `dialogOpen` and `editing`, a confirm
 * dialog to `confirmOpen` and `deleting`, and hand `saved` and `remove` to them.
 */
export class CrudManager<T> {
  /** The create-or-edit dialog is open; `editing` is null for a new item. */
  dialogOpen = $state(false);
  editing = $state<T | null>(null);
  /** The delete confirmation is open for `deleting`. */
  confirmOpen = $state(false);
  deleting = $state<T | null>(null);
  readonly #options: CrudOptions<T>;

  constructor(options: CrudOptions<T>) {
    this.#options = options;
  }

  openCreate = (): void => {
    this.editing = null;
    this.dialogOpen = true;
  };

  openEdit = (item: T): void => {
    this.editing = item;
    this.dialogOpen = true;
  };

  askDelete = (item: T): void => {
    this.deleting = item;
    this.confirmOpen = true;
  };

  /** A saved item replaces the one with its key, or joins the end of the list. */
  saved = (item: T): void => {
    const { keyOf, items, setItems } = this.#options;
    const key = keyOf(item);
    const list = items();
    setItems(
      list.some((x) => keyOf(x) === key) ? list.map((x) => (keyOf(x) === key ? item : x)) : [...list, item],
    );
  };

  /**
   * Deletes the item asked about, then drops it from the list and says so. A failure is shown and
   * thrown again, so the confirm dialog stays open.
   */
  remove = async (): Promise<void> => {
    const item = this.deleting;
    if (!item) return;
    const { noun, keyOf, nameOf, items, setItems, remove } = this.#options;
    try {
      await remove(item);
      setItems(items().filter((x) => keyOf(x) !== keyOf(item)));
      notifications.info(`${capitalised(noun)} "${nameOf(item)}" deleted.`);
    } catch (error) {
      handleError(error, `Could not delete the ${noun}`);
      throw error;
    }
  };
}
