import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import path from "node:path";
import { Transform, type TransformCallback } from "node:stream";
import { ErrorBody } from "@feedlab/schemas";
import { MediaFile, MediaSettings, MediaUpload } from "@feedlab/schemas/http/videos.ts";
import { Type } from "@sinclair/typebox";
import busboy from "busboy";
import { badRequest, HttpError, notFound, unprocessable } from "../http/errors.ts";
import { route } from "../http/route.ts";
import type { MediaFilesService } from "./media-files.ts";
import { UPLOADS_PREFIX } from "./media-files.ts";
import type { MediaStore } from "./media-store.ts";
import { ACCEPTED, MEDIA_KINDS, type MediaKind, type MediaType, SNIFF_BYTES, sniff } from "./media-type.ts";

const tooLarge = (limit: number) =>
  new HttpError(
    413,
    "upload_too_large",
    `The file is larger than this server accepts (${Math.round(limit / 2 ** 20)} MB, FEEDLAB_MAX_UPLOAD_MB).`,
    { limit_bytes: limit },
  );

const unsupported = (kind: MediaKind, found: MediaType | null) =>
  new HttpError(
    415,
    "unsupported_media_type",
    `${kind === "video" ? "A video" : kind === "captions" ? "Captions" : "A thumbnail"} must be ${ACCEPTED[kind]}; this file is ${found ? found.label : "none of the types Feedlab serves"}.`,
    { kind, accepted: ACCEPTED[kind], found: found?.contentType ?? null },
  );

/** A caption track's language: a BCP 47 tag such as `en`, `de` or `pt-BR`. */
function languageOf(raw: string | undefined): string {
  if (!raw)
    throw unprocessable("validation_failed", "Captions need their language: lang=en, say.", {
      field: "lang",
    });
  try {
    const [tag] = Intl.getCanonicalLocales(raw);
    if (tag && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(tag)) return tag;
  } catch {
    // Not a language tag: answered below.
  }
  throw unprocessable("validation_failed", `lang "${raw}" is not a language tag such as en, de or pt-BR.`, {
    field: "lang",
  });
}

/**
 * Checks a file's first bytes as they pass: a file that is not of `kind` fails the stream (415).
 * `onBytes` sees every byte that passes, in order (the file's hash is taken from them).
 */
function checkedAs(
  kind: MediaKind | null,
  onType: (type: MediaType) => void,
  onBytes: (chunk: Buffer) => void,
): Transform {
  let head: Buffer = Buffer.alloc(0);
  let checked = false;
  const check = (): HttpError | null => {
    checked = true;
    const type = sniff(head);
    if (!type || (kind !== null && type.kind !== kind))
      return unsupported(kind ?? type?.kind ?? "video", type);
    try {
      onType(type);
      return null;
    } catch (err) {
      return err as HttpError;
    }
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done: TransformCallback) {
      if (checked) {
        onBytes(chunk);
        return done(null, chunk);
      }
      head = Buffer.concat([head, chunk]);
      if (head.length < SNIFF_BYTES) return done();
      const err = check();
      if (!err) onBytes(head);
      done(err, err ? undefined : head);
    },
    flush(done) {
      if (checked) return done();
      const err = check();
      if (err) return done(err);
      onBytes(head);
      this.push(head);
      done();
    },
  });
}

interface Received {
  readonly name: string;
  readonly bytes: number;
  readonly type: MediaType;
  readonly lang: string | null;
  /** SHA-256 of the bytes, hex. */
  readonly sha256: string;
  /** The name the file had on the uploader's computer (or the stored name, when none was sent). */
  readonly fileName: string;
}

/**
 * Receives one multipart upload: the part named `file` goes to the store as it arrives (never whole
 * in memory), checked by its first bytes and cut off at `limit`. `kind` and `lang` come from the
 * query string or from form fields sent before the file.
 */
function receive(req: IncomingMessage, query: Record<string, unknown>, store: MediaStore, limit: number) {
  return new Promise<Received>((resolve, reject) => {
    let form: busboy.Busboy;
    try {
      form = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limit, fields: 10, fieldSize: 1024 },
      });
    } catch {
      reject(badRequest("malformed_body", "Send the file as multipart/form-data, in a field named file."));
      return;
    }
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(query)) if (typeof v === "string") fields[k] = v;
    let saving: Promise<Received> | null = null;
    let receiving: Transform | null = null;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(form);
      // The file being stored fails too, and the store removes what it had received.
      receiving?.destroy(err as Error);
      if (saving)
        saving.then(
          () => reject(err),
          () => reject(err),
        );
      else reject(err);
    };
    form.on("field", (name, value) => {
      fields[name] ??= value;
    });
    form.on("file", (name, file, info) => {
      if (name !== "file" || saving) {
        file.resume();
        return;
      }
      const rawKind = fields.kind;
      if (rawKind !== undefined && !(MEDIA_KINDS as readonly string[]).includes(rawKind)) {
        file.resume();
        return fail(
          unprocessable("validation_failed", `kind must be one of ${MEDIA_KINDS.join(", ")}.`, {
            field: "kind",
          }),
        );
      }
      let type: MediaType | null = null;
      let lang: string | null = null;
      const hash = createHash("sha256");
      const checker = checkedAs(
        (rawKind as MediaKind | undefined) ?? null,
        (t) => {
          type = t;
          if (t.kind === "captions") lang = languageOf(fields.lang);
        },
        (chunk) => hash.update(chunk),
      );
      file.on("limit", () => checker.destroy(tooLarge(limit)));
      file.on("error", (err) => checker.destroy(err));
      // The first error of the file's stream is the answer (the store may see it only as a stream
      // that closed early); it is listened for at once, before the store has opened its file.
      let failure: unknown = null;
      checker.on("error", (err) => {
        failure ??= err;
      });
      file.pipe(checker);
      receiving = checker;
      saving = store
        .save(checker, () => (type as MediaType | null)?.extension ?? "")
        .then(
          ({ name, bytes }) => ({
            name,
            bytes,
            type: type as unknown as MediaType,
            lang,
            sha256: hash.digest("hex"),
            fileName: path.basename(info.filename || name).slice(0, 255),
          }),
          (err) => {
            throw failure ?? err;
          },
        );
      saving.catch(fail);
    });
    form.on("error", (err) =>
      fail(badRequest("malformed_body", `The upload could not be read: ${(err as Error).message}`)),
    );
    form.on("close", () => {
      if (!saving) fail(badRequest("no_file", "The upload has no file: send it in a form field named file."));
      else saving.then(resolve, fail);
    });
    req.on("close", () => {
      if (!req.complete) fail(badRequest("upload_aborted", "The upload was cut off before the end."));
    });
    req.pipe(form);
  });
}

export function mediaRoutes({
  files,
  media,
  maxUploadBytes,
  store,
}: {
  files: MediaFilesService;
  media: MediaStore;
  maxUploadBytes: number;
  store: MediaSettings["store"];
}) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/media/settings",
      tag: "videos",
      summary: "The largest upload accepted and where uploads are kept",
      description: "The console checks a file's size against `max_upload_bytes` before sending it.",
      access: "admin",
      role: "researcher",
      responses: { 200: { description: "Settings", schema: MediaSettings } },
      handler: (ctx) => {
        ctx.body = { max_upload_bytes: maxUploadBytes, store } satisfies MediaSettings;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/media",
      audit: "media.upload",
      tag: "videos",
      summary: "Upload a video, its captions or a thumbnail",
      description:
        "`multipart/form-data` with the file in a field named `file`: an MP4 or WebM video, a WebVTT file with `kind=captions&lang=xx` (query string, or form fields sent before the file), or a JPEG, PNG or WebP image with `kind=thumbnail`. The type is told from the file's first bytes. The file is stored whole or not at all, under a new name, and served at `url` with HTTP Range support and lasting cache headers. Put `url` in a video's `url`, `thumbnail_url` or `captions`.",
      access: "admin",
      role: "researcher",
      streamedBody: {
        contentType: "multipart/form-data",
        schema: {
          type: "object",
          required: ["file"],
          properties: {
            file: { type: "string", format: "binary" },
            kind: { type: "string", enum: [...MEDIA_KINDS] },
            lang: { type: "string", description: "The captions' language (BCP 47), with kind=captions" },
          },
        },
      },
      responses: {
        201: { description: "Stored", schema: MediaUpload },
        400: { description: "no_file, malformed_body or upload_aborted", schema: ErrorBody },
        413: { description: "upload_too_large (FEEDLAB_MAX_UPLOAD_MB)", schema: ErrorBody },
        415: { description: "unsupported_media_type, naming what the file is", schema: ErrorBody },
      },
      handler: async (ctx) => {
        const declared = Number(ctx.get("content-length"));
        // A body far larger than the limit is refused before any of it is read.
        if (Number.isFinite(declared) && declared > maxUploadBytes + 1024 * 1024)
          throw tooLarge(maxUploadBytes);
        let got: Received;
        try {
          got = await receive(ctx.req, ctx.query, media, maxUploadBytes);
        } catch (err) {
          // The rest of a refused upload is not read: the connection closes after the answer.
          ctx.set("Connection", "close");
          throw err;
        }
        // Its content, so a study document can name it by hash (docs/study-files.md).
        await files.record({ ...got, kind: got.type.kind });
        ctx.status = 201;
        ctx.body = {
          url: `${UPLOADS_PREFIX}${got.name}`,
          sha256: got.sha256,
          content_type: got.type.contentType,
          bytes: got.bytes,
          kind: got.type.kind,
          ...(got.lang ? { lang: got.lang } : {}),
        };
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/media/files/{sha256}",
      tag: "videos",
      summary: "Find an uploaded file by its content (SHA-256)",
      description:
        "Study documents name uploads by hash (`media:<sha256>/<file name>`): this tells whether the server holds that content, and where it is served. Uploads made before release 0.9 have no hash.",
      access: "admin",
      role: "researcher",
      params: Type.Object({ sha256: Type.String({ pattern: "^[0-9a-f]{64}$" }) }),
      responses: {
        200: { description: "The file", schema: MediaFile },
        404: { description: "No upload has that content", schema: ErrorBody },
      },
      handler: async (ctx, { params }) => {
        const file = await files.byContent(params.sha256);
        if (!file) throw notFound("media file");
        ctx.body = file satisfies MediaFile;
      },
    }),
  ];
}
