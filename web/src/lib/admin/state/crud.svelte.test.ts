import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { notifications } from "../../notifications.svelte.ts";
import { CrudManager } from "./crud.svelte.ts";

interface Arm {
  id: string;
  name: string;
}

/** A manager over a list of arms kept in a plain array, deleting through `remove`. */
function armsManager(remove: (arm: Arm) => Promise<unknown> = async () => undefined) {
  let list: Arm[] = [
    { id: "a", name: "Control" },
    { id: "b", name: "Treatment" },
  ];
  const crud = new CrudManager<Arm>({
    noun: "arm",
    keyOf: (arm) => arm.id,
    nameOf: (arm) => arm.name,
    items: () => list,
    setItems: (items) => {
      list = items;
    },
    remove,
  });
  return { crud, list: () => list };
}

describe("the open / edit / delete state of a console list", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    notifications.items = [];
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("opens the dialog empty to create, and with the item to edit", () => {
    const { crud, list } = armsManager();
    crud.openEdit(list()[0] as Arm);
    expect([crud.dialogOpen, crud.editing?.name]).toEqual([true, "Control"]);
    crud.openCreate();
    expect([crud.dialogOpen, crud.editing]).toEqual([true, null]);
  });

  it("replaces a saved item with its key in place, and adds a new one at the end", () => {
    const { crud, list } = armsManager();
    crud.saved({ id: "a", name: "Control (renamed)" });
    crud.saved({ id: "c", name: "Third" });
    expect(list().map((arm) => arm.name)).toEqual(["Control (renamed)", "Treatment", "Third"]);
  });

  it("deletes the item asked about, drops it from the list and says so", async () => {
    const remove = vi.fn(async () => undefined);
    const { crud, list } = armsManager(remove);
    crud.askDelete(list()[1] as Arm);
    expect(crud.confirmOpen).toBe(true);
    await crud.remove();
    expect(remove).toHaveBeenCalledWith({ id: "b", name: "Treatment" });
    expect(list().map((arm) => arm.id)).toEqual(["a"]);
    expect(notifications.items.map((t) => t.message)).toEqual(['Arm "Treatment" deleted.']);
  });

  it("keeps the list, shows the failure and throws again when the delete fails, so the confirm stays open", async () => {
    const { crud, list } = armsManager(async () => {
      throw new Error("The arm has participants.");
    });
    crud.askDelete(list()[0] as Arm);
    await expect(crud.remove()).rejects.toThrow("The arm has participants.");
    expect(list()).toHaveLength(2);
    expect(notifications.items.map((t) => [t.kind, t.message])).toEqual([
      ["error", "Could not delete the arm: The arm has participants."],
    ]);
  });

  it("does nothing when no item was asked about", async () => {
    const remove = vi.fn(async () => undefined);
    const { crud, list } = armsManager(remove);
    await crud.remove();
    expect(remove).not.toHaveBeenCalled();
    expect(list()).toHaveLength(2);
  });
});
