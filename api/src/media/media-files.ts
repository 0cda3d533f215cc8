import type { MediaFile } from "@feedlab/schemas/http/videos.ts";
import type { Db } from "@feedlab/sql";
import type { ServiceDeps } from "../deps.ts";

/** Where uploaded files are served (the media store's `serve`). */
export const UPLOADS_PREFIX = "/media/uploads/";

/** A stored upload as `media_files` records it. */
export interface StoredUpload {
  /** The name the store gave it (served at `UPLOADS_PREFIX` + name). */
  readonly name: string;
  /** SHA-256 of its bytes, hex. */
  readonly sha256: string;
  readonly bytes: number;
  readonly kind: MediaFile["kind"];
  /** The name the file had on the uploader's computer. */
  readonly fileName: string;
}

/**
 * The uploads' contents (`media_files`, which this module owns): what each stored upload holds, so a
 * study document can name an upload by hash (docs/study-files.md) and another server find its copy.
 */
export function createMediaFilesService({ db, now }: Pick<ServiceDeps, "db" | "now">) {
  return {
    /** Records a stored upload's content. */
    async record(file: StoredUpload): Promise<void> {
      await db("media_files").insert({
        name: file.name,
        sha256: file.sha256,
        bytes: file.bytes,
        kind: file.kind,
        file_name: file.fileName,
        created_at: now(),
      });
    },
    /** The first upload of this content, as the API answers it; null when none has it. */
    async byContent(sha256: string): Promise<MediaFile | null> {
      const row = (await db("media_files").where({ sha256 }).orderBy("created_at").first()) as
        | { name: string; sha256: string; bytes: number | string; kind: MediaFile["kind"]; file_name: string }
        | undefined;
      if (!row) return null;
      return {
        url: `${UPLOADS_PREFIX}${row.name}`,
        sha256: row.sha256,
        bytes: Number(row.bytes),
        kind: row.kind,
        file_name: row.file_name,
      };
    },
  };
}

export type MediaFilesService = ReturnType<typeof createMediaFilesService>;

/** The contents of the uploads stored under these names (those without a recorded hash are left out). */
export async function contentsOfUploads(
  db: Db,
  names: readonly string[],
): Promise<{ name: string; sha256: string; file_name: string }[]> {
  const found: { name: string; sha256: string; file_name: string }[] = [];
  for (let i = 0; i < names.length; i += 1000)
    found.push(
      ...((await db("media_files")
        .whereIn("name", names.slice(i, i + 1000))
        .select("name", "sha256", "file_name")) as { name: string; sha256: string; file_name: string }[]),
    );
  return found;
}

/** The uploads holding any of these contents, oldest first. */
export async function uploadsWithContent(
  db: Db,
  sha256s: readonly string[],
): Promise<{ name: string; sha256: string }[]> {
  return (await db("media_files")
    .whereIn("sha256", [...sha256s])
    .orderBy("created_at")
    .select("name", "sha256")) as { name: string; sha256: string }[];
}
