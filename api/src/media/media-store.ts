// Where uploaded media live, behind a small interface: a folder by default (the data folder, or a
// volume every API process mounts in a scale-out deployment). A file becomes visible only once all
// its bytes are stored, under a name never used before, so readers never see half a file and a
// served file never changes (it may be cached for good).
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Middleware } from "koa";
import type { AppState } from "../http/context.ts";
import { sendFile } from "../http/static.ts";

export interface MediaStore {
  /**
   * Stores `source` as a new file, all or nothing: when the stream fails (the client went away, a
   * limit was hit) nothing is kept. `extension` names the file's type; it is asked once the stream
   * has given its first bytes (the type is told from them). Answers the file's name and size.
   */
  save(source: Readable, extension: () => string): Promise<{ name: string; bytes: number }>;
  /**
   * Answers a GET or HEAD of the stored file `name` (a stored name, checked by `serveMedia`), with
   * Range, ETag and lasting cache headers; false when there is no such file.
   */
  send(ctx: Parameters<Middleware<AppState>>[0], name: string): Promise<boolean>;
}

/** Serves a store's files under `prefix`; any other path (or a name no upload has) goes on. */
export function serveMedia(store: MediaStore, prefix: string): Middleware<AppState> {
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || !ctx.path.startsWith(prefix)) return next();
    const name = ctx.path.slice(prefix.length);
    if (!isStoredName(name) || !(await store.send(ctx, name))) return next();
  };
}

/** Files being received, inside the store's folder (same file system: the final rename is atomic). */
const INCOMING = ".incoming";

/** A store in a folder of the local file system (or a mounted shared volume). */
export function folderMediaStore(dir: string): MediaStore {
  const root = path.resolve(dir);
  let ready: Promise<unknown> | null = null;
  const prepare = () => {
    ready ??= mkdir(path.join(root, INCOMING), { recursive: true }).catch((err) => {
      ready = null;
      throw err;
    });
    return ready;
  };
  return {
    async save(source, extension) {
      await prepare();
      const id = randomUUID();
      const incoming = path.join(root, INCOMING, id);
      const file = createWriteStream(incoming, { flags: "wx" });
      try {
        await pipeline(source, file);
        const name = `${id}${extension()}`;
        await rename(incoming, path.join(root, name));
        return { name, bytes: file.bytesWritten };
      } catch (err) {
        await rm(incoming, { force: true });
        throw err;
      }
    },
    send: (ctx, name) => sendFile(ctx, root, name, { maxAgeSeconds: 365 * 24 * 3600, immutable: true }),
  };
}

const STORED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z0-9]{2,4}$/;

/** Stored names are a UUID and an extension: nothing else (no folders, no dot files) is served. */
const isStoredName = (name: string) => STORED_NAME.test(name);
