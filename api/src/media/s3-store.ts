// Uploaded media in an S3-compatible object store (AWS S3, MinIO, Ceph, Cloudflare R2, ...), for
// scale-out deployments whose API processes share no folder. The files keep their URLs on this
// server (`/media/uploads/<name>`): requests are answered from the store, Range included, so
// participants need no access to the bucket and the pages' security policy stays as it is.
import { randomUUID } from "node:crypto";
import type { OutgoingHttpHeaders } from "node:http";
import { type Readable, Transform } from "node:stream";
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { rangeNotSatisfiable } from "../http/errors.ts";
import type { MediaStore } from "./media-store.ts";

export interface S3Settings {
  readonly bucket: string;
  /** Keys start with this (say `feedlab/`); empty for the bucket's root. */
  readonly prefix: string;
  /** The service's URL for stores other than AWS (`http://minio:9000`); unset for AWS itself. */
  readonly endpoint: string | null;
  readonly region: string;
}

const CONTENT_TYPES: Record<string, string> = {
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".vtt": "text/vtt; charset=utf-8",
  ".jpg": "image/jpeg",
  ".png": "image/png",
  ".webp": "image/webp",
};

/**
 * A store in a bucket. Credentials come from the AWS SDK's usual sources (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, a profile, or the instance's role). An upload is written as a multipart
 * upload that becomes an object only when complete: a failed one is aborted and leaves nothing.
 */
export function s3MediaStore(settings: S3Settings): MediaStore & { close(): void } {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
  });
  const keyOf = (name: string) => `${settings.prefix}${name}`;
  return {
    async save(source, extension) {
      // The object's key names its type, known once the first bytes have passed.
      const first = await new Promise<Buffer | null>((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          cleanup();
          source.pause();
          resolve(chunk);
        };
        const onEnd = () => {
          cleanup();
          resolve(null);
        };
        const onError = (err: Error) => {
          cleanup();
          reject(err);
        };
        const cleanup = () => {
          source.off("data", onData);
          source.off("end", onEnd);
          source.off("error", onError);
        };
        source.on("data", onData);
        source.on("end", onEnd);
        source.on("error", onError);
      });
      const name = `${randomUUID()}${extension()}`;
      let bytes = 0;
      // Counted as they pass (a data listener would start the stream flowing before the upload reads it).
      const body = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      if (first) body.write(first);
      source.on("error", (err) => body.destroy(err));
      source.pipe(body);
      const upload = new Upload({
        client,
        params: {
          Bucket: settings.bucket,
          Key: keyOf(name),
          Body: body,
          ContentType: CONTENT_TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream",
          CacheControl: "public, max-age=31536000, immutable",
        },
        leavePartsOnError: false,
      });
      const failed = new Promise<never>((_, reject) => body.once("error", reject));
      const done = upload.done();
      // Whichever settles second is not awaited: its rejection is expected and handled here.
      failed.catch(() => undefined);
      done.catch(() => undefined);
      try {
        await Promise.race([done, failed]);
      } catch (err) {
        await upload.abort().catch(() => undefined);
        throw err;
      }
      return { name, bytes };
    },
    async send(ctx, name) {
      let object: GetObjectCommandOutput;
      try {
        object = await client.send(
          new GetObjectCommand({
            Bucket: settings.bucket,
            Key: keyOf(name),
            Range: ctx.get("range") || undefined,
            IfNoneMatch: ctx.get("if-none-match") || undefined,
          }),
        );
      } catch (err) {
        const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
        if (status === 404) return false;
        if (status === 304) {
          ctx.status = 304;
          return true;
        }
        if (status === 416) throw rangeNotSatisfiable();
        throw err;
      }
      ctx.status = object.ContentRange ? 206 : 200;
      ctx.set("Accept-Ranges", "bytes");
      ctx.set("Cache-Control", "public, max-age=31536000, immutable");
      if (object.ContentType) ctx.type = object.ContentType;
      if (object.ContentLength !== undefined) ctx.length = object.ContentLength;
      if (object.ContentRange) ctx.set("Content-Range", object.ContentRange);
      if (object.ETag) ctx.set("ETag", object.ETag);
      if (object.LastModified) ctx.lastModified = object.LastModified;
      const body = object.Body as Readable;
      if (ctx.method === "HEAD") {
        // The headers alone (Koa would answer a null body with 204 and no length).
        body.destroy();
        ctx.respond = false;
        ctx.res.writeHead(ctx.status, ctx.response.headers as OutgoingHttpHeaders).end();
        return true;
      }
      ctx.body = body;
      return true;
    },
    close: () => client.destroy(),
  };
}
