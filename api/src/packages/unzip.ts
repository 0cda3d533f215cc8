import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import yauzl from "yauzl";

/**
 * Writes a zip's files into `dir` (made if missing) and answers their names, in the zip's order. The
 * zip is read from its central directory (ZIP64 included), so a package of any size unpacks; an
 * entry whose name would land outside `dir` is refused.
 */
export async function unzipTo(zipPath: string, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  const names: string[] = [];
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        zip.once("entry", resolve);
        zip.once("end", () => resolve(null));
        zip.once("error", reject);
        zip.readEntry();
      });
      zip.removeAllListeners("entry").removeAllListeners("end").removeAllListeners("error");
      if (entry === null) return names;
      const target = path.resolve(dir, entry.fileName);
      if (!target.startsWith(path.resolve(dir) + path.sep))
        throw new Error(`the zip holds a file outside its folder: ${entry.fileName}`);
      if (entry.fileName.endsWith("/")) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
      names.push(entry.fileName);
    }
  } finally {
    zip.close();
  }
}
