/**
 * File uploads with progress: a video list to import, and media files (video, captions, thumbnail).
 * They go by XMLHttpRequest, which reports upload progress as fetch does not, and carry the console
 * credential as every admin request does.
 */
import { CONSOLE_HEADER, consoleCredential } from "../admin/console-credential.ts";
import { ApiError, errorFromResponse } from "../participant-api.ts";
import type { ImportSummary, MediaUpload } from "../types.ts";

/** Progress of a file upload: `uploading` with a fraction (null when unknown), then `processing`. */
export type UploadProgress = { phase: "uploading"; fraction: number | null } | { phase: "processing" };

/** The content type the import endpoint expects for a file, from its extension (or its own type). */
export function importContentType(file: File): "text/csv" | "application/json" | null {
  const name = file.name.toLowerCase();
  if (name.endsWith(".csv") || file.type === "text/csv") return "text/csv";
  if (name.endsWith(".json") || file.type === "application/json") return "application/json";
  return null;
}

/**
 * Sends a body with XMLHttpRequest (fetch reports no upload progress) and answers the JSON reply.
 * `onProgress` sees the upload fraction, then `processing` once the body is sent and the server works
 * on it; `signal` cancels. A dropped connection rejects with `network_error`.
 */
function sendWithProgress<T>(
  url: string,
  body: Blob | FormData,
  contentType: string | null,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    if (contentType) xhr.setRequestHeader("content-type", contentType);
    xhr.setRequestHeader("accept", "application/json");
    const credential = consoleCredential();
    if (credential !== null) xhr.setRequestHeader(CONSOLE_HEADER, credential);
    xhr.upload.onprogress = (event) => {
      onProgress({
        phase: "uploading",
        fraction: event.lengthComputable ? event.loaded / event.total : null,
      });
    };
    xhr.upload.onload = () => onProgress({ phase: "processing" });
    xhr.onerror = () =>
      reject(
        new ApiError(
          0,
          "network_error",
          "The upload failed: the connection to the server was lost. Nothing was kept; try again.",
        ),
      );
    xhr.onabort = () => reject(new ApiError(0, "aborted", "The upload was cancelled. Nothing was kept."));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorFromResponse(xhr.status, xhr.responseText, xhr.getResponseHeader("retry-after")));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText) as T);
      } catch {
        reject(new ApiError(xhr.status, "invalid_response", "The server sent a response that is not JSON."));
      }
    };
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    onProgress({ phase: "uploading", fraction: 0 });
    xhr.send(body);
  });
}

/**
 * Uploads a CSV or JSON file as is to `POST /api/v1/admin/videos/import`; with `update`, rows whose
 * external id exists update that video.
 */
export function importVideos(
  file: File,
  onProgress: (progress: UploadProgress) => void,
  options: { update?: boolean } = {},
): Promise<ImportSummary> {
  const contentType = importContentType(file);
  if (!contentType) {
    return Promise.reject(
      new ApiError(0, "unsupported_file", "Choose a .csv or .json file.", { field: "file" }),
    );
  }
  const url = `/api/v1/admin/videos/import${options.update ? "?update=true" : ""}`;
  return sendWithProgress(url, file, contentType, onProgress);
}

/**
 * Uploads a video (MP4 or WebM), captions (`kind: "captions"` with `lang`) or a thumbnail image to
 * `POST /api/v1/admin/media`; answers where Feedlab serves it.
 */
export function uploadMedia(
  file: Blob,
  filename: string,
  options: { kind?: "video" | "captions" | "thumbnail"; lang?: string; signal?: AbortSignal },
  onProgress: (progress: UploadProgress) => void = () => undefined,
): Promise<MediaUpload> {
  const form = new FormData();
  if (options.kind) form.append("kind", options.kind);
  if (options.lang) form.append("lang", options.lang);
  form.append("file", file, filename);
  return sendWithProgress("/api/v1/admin/media", form, null, onProgress, options.signal);
}
