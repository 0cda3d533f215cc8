import { describe, expect, it } from "vitest";
import { type RegisterSession, SESSION_ID_KEY, SessionStore } from "./session.ts";
import { memoryStore } from "./storage.ts";

/** A session store over memory whose ids are `s1`, `s2`, ..., and the ids the server was given. */
function tab() {
  const storage = memoryStore();
  let n = 0;
  const store = new SessionStore(storage, () => `s${++n}`);
  const registered: string[] = [];
  const register: RegisterSession = async (id) => {
    registered.push(id);
    return "ok";
  };
  return { storage, store, registered, register };
}

describe("the tab's session", () => {
  it("keeps one registered id across ensure calls, registering it once", async () => {
    const { store, registered, register } = tab();
    expect(await store.ensure(register)).toBe("s1");
    expect(await store.ensure(register)).toBe("s1");
    expect(registered).toEqual(["s1"]);
  });

  it("begins a new registered session on renew, which ensure gives from then on", async () => {
    const { storage, store, registered, register } = tab();
    await store.ensure(register);
    const seen: (string | null)[] = [];
    store.onChange = (id) => seen.push(id);

    expect(await store.renew(register)).toBe("s2");

    expect(await store.ensure(register)).toBe("s2");
    expect(store.current).toBe("s2");
    expect(storage.getItem(SESSION_ID_KEY)).toBe("s2");
    expect(registered).toEqual(["s1", "s2"]);
    expect(seen).toEqual([null, "s2"]);
  });

  it("keeps the new session after a reload of the tab (a new store over the same storage)", async () => {
    const { storage, store, registered, register } = tab();
    await store.ensure(register);
    await store.renew(register);

    const reloaded = new SessionStore(storage, () => "never");
    expect(await reloaded.ensure(register)).toBe("s2");
    expect(registered).toEqual(["s1", "s2"]);
  });

  it("lets a registration under way finish before renewing, so the new id is the one kept", async () => {
    const { store, registered } = tab();
    let release = () => {};
    const slow: RegisterSession = (id) => {
      registered.push(id);
      return id === "s1" ? new Promise((resolve) => (release = () => resolve("ok"))) : Promise.resolve("ok");
    };
    const first = store.ensure(slow);
    const renewed = store.renew(slow);
    release();

    expect(await first).toBe("s1");
    expect(await renewed).toBe("s2");
    expect(await store.ensure(slow)).toBe("s2");
  });

  it("registers the fresh id again on the next ensure when renewing failed", async () => {
    const { store, registered, register } = tab();
    await store.ensure(register);
    const offline: RegisterSession = async () => {
      throw new Error("offline");
    };

    await expect(store.renew(offline)).rejects.toThrow("offline");

    expect(await store.ensure(register)).toBe("s2");
    expect(registered).toEqual(["s1", "s2"]);
  });
});
