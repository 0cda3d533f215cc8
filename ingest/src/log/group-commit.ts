/**
 * Group commit: calls that arrive while a write is in flight wait and then share the next write,
 * so concurrent batches cost one round trip instead of one each. Each caller gets its own result,
 * and resolves only once its items are written. When a shared write fails and `isolate` is set,
 * each batch is written alone so that one bad batch does not fail the others.
 */
export function groupCommit<T, R>(
  write: (batches: readonly T[]) => Promise<R[]>,
  options: { isolate: boolean },
): (batch: T) => Promise<R> {
  let waiting: { batch: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  let draining = false;

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const group = waiting;
      waiting = [];
      try {
        const results = await write(group.map((g) => g.batch));
        for (const [i, g] of group.entries()) g.resolve(results[i] as R);
      } catch (err) {
        if (group.length === 1 || !options.isolate) {
          for (const g of group) g.reject(err);
          continue;
        }
        for (const g of group) {
          try {
            g.resolve((await write([g.batch]))[0] as R);
          } catch (e) {
            g.reject(e);
          }
        }
      }
    }
    draining = false;
  }

  return (batch) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ batch, resolve, reject });
      if (!draining) {
        draining = true;
        void drain();
      }
    });
}
