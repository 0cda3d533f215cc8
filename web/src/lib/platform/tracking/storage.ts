/** The part of the Web Storage API the tracking core uses. */
export type KeyValueStore = Pick<Storage, "getItem" | "setItem" | "removeItem"> & {
  /** Keys present, for scanning (e.g. other sessions' outboxes). */
  keys(): string[];
};

/** An in-memory store: the fallback where Web Storage is unavailable, and the store of unit tests. */
export function memoryStore(): KeyValueStore {
  const map = new Map<string, string>();
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, String(value)),
    removeItem: (key) => void map.delete(key),
    keys: () => [...map.keys()],
  };
}

/**
 * `localStorage` or `sessionStorage` when usable, else a memory store (some private modes throw on
 * access, and storage may be disabled). Quota errors on `setItem` still reach the caller.
 */
export function webStore(kind: "local" | "session"): KeyValueStore {
  try {
    const store = kind === "local" ? window.localStorage : window.sessionStorage;
    const probe = "feedlab.probe";
    store.setItem(probe, probe);
    store.removeItem(probe);
    return {
      getItem: (key) => store.getItem(key),
      setItem: (key, value) => store.setItem(key, value),
      removeItem: (key) => store.removeItem(key),
      keys: () => Array.from({ length: store.length }, (_, i) => store.key(i)).filter((k) => k !== null),
    };
  } catch {
    return memoryStore();
  }
}
