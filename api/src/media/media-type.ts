// What an uploaded file is, told from its first bytes (never from its name or the type the browser
// claims): the kinds of media Feedlab serves, and the types each kind of upload takes.

/** What an upload is for: a video, its captions (WebVTT), or a thumbnail. */
export type MediaKind = "video" | "captions" | "thumbnail";
export const MEDIA_KINDS: readonly MediaKind[] = ["video", "captions", "thumbnail"];

export interface MediaType {
  readonly contentType: string;
  readonly extension: string;
  readonly kind: MediaKind;
  /** How a researcher would name it. */
  readonly label: string;
}

const TYPES = {
  mp4: { contentType: "video/mp4", extension: ".mp4", kind: "video", label: "an MP4 video" },
  webm: { contentType: "video/webm", extension: ".webm", kind: "video", label: "a WebM video" },
  vtt: { contentType: "text/vtt", extension: ".vtt", kind: "captions", label: "WebVTT captions" },
  jpeg: { contentType: "image/jpeg", extension: ".jpg", kind: "thumbnail", label: "a JPEG image" },
  png: { contentType: "image/png", extension: ".png", kind: "thumbnail", label: "a PNG image" },
  webp: { contentType: "image/webp", extension: ".webp", kind: "thumbnail", label: "a WebP image" },
} as const satisfies Record<string, MediaType>;

/** Bytes of a file's start that `sniff` needs at most. */
export const SNIFF_BYTES = 16;

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...bytes.subarray(from, to));

/**
 * The type of a file from its first bytes (at least SNIFF_BYTES of them, or the whole file), or null
 * for anything Feedlab does not serve: MP4 has an `ftyp` box first, WebM starts with EBML's magic
 * number, WebVTT with "WEBVTT" (after an optional byte order mark), and each image format with its own.
 */
export function sniff(head: Uint8Array): MediaType | null {
  if (head.length >= 8 && ascii(head, 4, 8) === "ftyp") return TYPES.mp4;
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return TYPES.webm;
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  if (
    ascii(head, bom, bom + 6) === "WEBVTT" &&
    (head.length === bom + 6 || /[\s]/.test(ascii(head, bom + 6, bom + 7)))
  )
    return TYPES.vtt;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return TYPES.jpeg;
  if (ascii(head, 0, 8) === "\x89PNG\r\n\x1a\n") return TYPES.png;
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return TYPES.webp;
  return null;
}

/** What a researcher can upload as each kind, in words (for errors). */
export const ACCEPTED: Record<MediaKind, string> = {
  video: "an MP4 or WebM video",
  captions: "a WebVTT file (.vtt)",
  thumbnail: "a JPEG, PNG or WebP image",
};
