import { MEDIA_REF, type StudyDocument } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { contentsOfUploads, UPLOADS_PREFIX, uploadsWithContent } from "../media/media-files.ts";

type PoolVideo = NonNullable<StudyDocument["pool"]>[number];

/** The URLs of a pool entry (its media, thumbnail and captions), rewritten by `f`. */
function mapUrls(v: PoolVideo, f: (url: string) => string): PoolVideo {
  return {
    ...v,
    url: f(v.url),
    ...(v.thumbnail_url ? { thumbnail_url: f(v.thumbnail_url) } : {}),
    ...(v.captions ? { captions: v.captions.map((c) => ({ ...c, url: f(c.url) })) } : {}),
  };
}

const urlsOf = (v: PoolVideo) => [v.url, v.thumbnail_url ?? "", ...(v.captions ?? []).map((c) => c.url)];

/**
 * The pool with its uploads named by content, `media:<sha256>/<file name>`, so the document can go to
 * another server (an upload from before hashes were kept stays a URL).
 */
export async function namedByContent(db: Db, pool: readonly PoolVideo[]): Promise<PoolVideo[]> {
  const names = [
    ...new Set(
      pool
        .flatMap(urlsOf)
        .filter((u) => u.startsWith(UPLOADS_PREFIX))
        .map((u) => u.slice(UPLOADS_PREFIX.length)),
    ),
  ];
  const refs = new Map<string, string>();
  for (const r of await contentsOfUploads(db, names))
    refs.set(`${UPLOADS_PREFIX}${r.name}`, `media:${r.sha256}/${r.file_name}`);
  return pool.map((v) => mapUrls(v, (u) => refs.get(u) ?? u));
}

/** A file the document names by content that this server does not hold. */
export interface MissingMedia {
  readonly sha256: string;
  readonly fileName: string;
}

/**
 * A pool entry with its `media:` references resolved to where this server serves that content
 * (preferring the upload `current`, the stored video's URLs, already uses); the ones it lacks.
 */
export async function resolveContent(
  db: Db,
  v: PoolVideo,
  current: readonly string[],
): Promise<{ video: PoolVideo; missing: MissingMedia[] }> {
  const wanted = urlsOf(v).flatMap((u) => {
    const m = MEDIA_REF.exec(u);
    return m ? [{ ref: u, sha256: m[1] as string, fileName: m[2] as string }] : [];
  });
  if (wanted.length === 0) return { video: v, missing: [] };
  const rows = await uploadsWithContent(db, [...new Set(wanted.map((w) => w.sha256))]);
  const resolved = new Map<string, string>();
  const missing: MissingMedia[] = [];
  for (const w of wanted) {
    const urls = rows.filter((r) => r.sha256 === w.sha256).map((r) => `${UPLOADS_PREFIX}${r.name}`);
    const url = urls.find((u) => current.includes(u)) ?? urls[0];
    if (url) resolved.set(w.ref, url);
    else if (!missing.some((m) => m.sha256 === w.sha256))
      missing.push({ sha256: w.sha256, fileName: w.fileName });
  }
  return { video: mapUrls(v, (u) => resolved.get(u) ?? u), missing };
}
