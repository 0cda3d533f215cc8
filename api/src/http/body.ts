import type { IncomingMessage } from "node:http";
import getRawBody from "raw-body";
import { badRequest, HttpError, payloadTooLarge } from "./errors.ts";

export interface BodyOptions {
  /** Maximum body size in bytes; larger bodies get 413. */
  readonly limitBytes: number;
  /** Media types accepted besides application/json (for example text/plain for beacons, text/csv for imports). */
  readonly acceptTypes?: readonly string[];
}

export interface RawBody {
  readonly mediaType: string;
  readonly text: string;
}

function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Reads the whole body as UTF-8 text, enforcing the size limit (413) and the accepted media types (400). */
export async function readRawBody(req: IncomingMessage, options: BodyOptions): Promise<RawBody> {
  const mediaType = mediaTypeOf(req);
  const accepted = ["application/json", ...(options.acceptTypes ?? [])];
  if (!accepted.includes(mediaType)) {
    throw badRequest("unsupported_content_type", `Send the body as ${accepted.join(" or ")}.`, {
      content_type: mediaType || null,
      accepted,
    });
  }
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > options.limitBytes) throw payloadTooLarge(options.limitBytes);
  try {
    const text = await getRawBody(req, { limit: options.limitBytes, encoding: "utf8" });
    return { mediaType, text };
  } catch (err) {
    const e = err as { type?: string; status?: number };
    if (e.type === "entity.too.large") throw payloadTooLarge(options.limitBytes);
    if (e.type === "request.aborted")
      throw new HttpError(400, "request_aborted", "The client aborted the request.");
    if (e.status && e.status < 500)
      throw badRequest("unreadable_body", "The request body could not be read.");
    throw err;
  }
}

/** Parses JSON text; malformed JSON is a 400 `malformed_json` naming where parsing stopped. */
export function parseJson(text: string): unknown {
  if (text.trim() === "")
    throw badRequest("malformed_json", "The request body is empty; send a JSON document.");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest("malformed_json", `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
