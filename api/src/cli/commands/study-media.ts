import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, openAsBlob } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { MEDIA_REF } from "@feedlab/schemas";
import { FormData } from "undici";
import { parse } from "yaml";
import { type AdminClient, errorOf, RemoteError } from "../admin-client.ts";
import { err } from "../command.ts";

/** A file a study document names by content, and what it is for. */
interface MediaRef {
  readonly sha256: string;
  readonly fileName: string;
  readonly kind: "video" | "thumbnail" | "captions";
  readonly lang?: string;
}

/** The uploads a document names (`media:<sha256>/<file name>`), each once. */
export function mediaRefs(text: string): MediaRef[] {
  let doc: {
    pool?: { url?: string; thumbnail_url?: string | null; captions?: { url?: string; lang?: string }[] }[];
  };
  try {
    doc = parse(text) ?? {};
  } catch {
    return []; // The server names the problem, with its line.
  }
  const refs = new Map<string, MediaRef>();
  const add = (url: unknown, kind: MediaRef["kind"], lang?: string) => {
    const m = typeof url === "string" ? MEDIA_REF.exec(url) : null;
    if (m?.[1] && m[2] && !refs.has(m[1]))
      refs.set(m[1], { sha256: m[1], fileName: m[2], kind, ...(lang ? { lang } : {}) });
  };
  for (const v of Array.isArray(doc.pool) ? doc.pool : []) {
    add(v.url, "video");
    add(v.thumbnail_url, "thumbnail");
    for (const c of v.captions ?? []) add(c.url, "captions", c.lang);
  }
  return [...refs.values()];
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** Whether the server holds the content, and where it serves it. */
async function stored(admin: AdminClient, sha256: string): Promise<string | null> {
  const a = await admin.call<{ url: string }>("GET", `/api/v1/admin/media/files/${sha256}`);
  if (a.status === 200) return a.body.url;
  if (a.status === 404) return null;
  throw new RemoteError(errorOf(a)?.message ?? `HTTP ${a.status}`);
}

/**
 * Uploads from `dir` each file the document names that the server lacks, checked against its hash
 * first; answers how many went up. A file missing from `dir`, or with other content, ends the command.
 */
export async function uploadMissing(admin: AdminClient, text: string, dir: string): Promise<number> {
  let uploaded = 0;
  for (const ref of mediaRefs(text)) {
    if ((await stored(admin, ref.sha256)) !== null) continue;
    const file = path.join(dir, ref.fileName);
    if (!existsSync(file))
      throw new RemoteError(
        `${file} is missing: the study names it (sha256 ${ref.sha256}) and the server does not hold it.`,
      );
    if ((await sha256Of(file)) !== ref.sha256)
      throw new RemoteError(
        `${file} is not the file the study names: its content differs (sha256 ${ref.sha256} expected).`,
      );
    const form = new FormData();
    form.set("kind", ref.kind);
    if (ref.lang) form.set("lang", ref.lang);
    form.set("file", await openAsBlob(file), ref.fileName);
    const a = await admin.call("POST", "/api/v1/admin/media", form);
    if (a.status !== 201)
      throw new RemoteError(`Uploading ${file} failed: ${errorOf(a)?.message ?? `HTTP ${a.status}`}`);
    err(`Uploaded ${file}`);
    uploaded++;
  }
  return uploaded;
}

/** Downloads into `dir` each upload the document names, under its file name, for `apply --media`. */
export async function downloadMedia(admin: AdminClient, text: string, dir: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  let n = 0;
  for (const ref of mediaRefs(text)) {
    const url = await stored(admin, ref.sha256);
    if (url === null)
      throw new RemoteError(`The server no longer holds ${ref.fileName} (sha256 ${ref.sha256}).`);
    const file = path.join(dir, ref.fileName);
    await pipeline(await admin.stream(url), createWriteStream(file));
    err(`Wrote ${file}`);
    n++;
  }
  return n;
}
