// What the console learns of a video file in the researcher's browser, with no tool on the server:
// its duration, and a frame to use as its thumbnail (the browser decodes the file it plays anyway).

export interface Probe {
  /** Seconds, or null when the file does not say. */
  readonly duration: number | null;
  /** A JPEG of a frame a second in (or a third of a short video), at most 640 pixels wide. */
  readonly thumbnail: Blob | null;
}

const TIMEOUT_MS = 20_000;

/**
 * Why the browser could not read a file as a video: it cannot play it (not a video, or a codec it
 * lacks), or it took too long. `detail` keeps the browser's own words (such as Chromium's
 * "DEMUXER_ERROR_COULD_NOT_OPEN") for the console's log, never for the researcher.
 */
export class ProbeError extends Error {
  constructor(
    readonly reason: "unplayable" | "timeout",
    readonly detail = "",
  ) {
    super(
      reason === "timeout"
        ? "the browser took too long to read the file"
        : "the browser cannot play the file",
    );
    this.name = "ProbeError";
  }
}

/** What the console says of a file it will not send, in plain words, naming the file. */
export function notAVideoMessage(fileName: string): string {
  return `“${fileName}” is not a video Feedlab can play: choose an MP4 or WebM file.`;
}

/** What the console says when reading `fileName` in the browser failed with `error` (from `probeVideo`). */
export function probeFailureMessage(fileName: string, error: unknown): string {
  if (error instanceof ProbeError && error.reason === "timeout")
    return `This browser took too long to read “${fileName}”. Remove it and choose it again, or choose another MP4 or WebM file.`;
  return notAVideoMessage(fileName);
}

function waitFor(el: HTMLMediaElement, event: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new ProbeError("timeout")), TIMEOUT_MS);
    const done = (fn: () => void) => () => {
      clearTimeout(timer);
      el.removeEventListener(event, ok);
      el.removeEventListener("error", failed);
      fn();
    };
    const ok = done(resolve);
    const failed = done(() => reject(new ProbeError("unplayable", el.error?.message ?? "")));
    el.addEventListener(event, ok);
    el.addEventListener("error", failed);
  });
}

/** A frame of `video` now, as a JPEG. */
export function grabFrame(video: HTMLVideoElement, maxWidth = 640): Promise<Blob | null> {
  const width = Math.min(maxWidth, video.videoWidth);
  if (!width || !video.videoHeight) return Promise.resolve(null);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = Math.round((video.videoHeight / video.videoWidth) * width);
  canvas.getContext("2d")?.drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob), "image/jpeg", 0.82));
}

/**
 * Reads a video file's duration and a thumbnail frame; rejects with a `ProbeError` when the browser
 * cannot decode it.
 */
export async function probeVideo(file: Blob): Promise<Probe> {
  const url = URL.createObjectURL(file);
  const video = document.createElement("video");
  video.muted = true;
  video.preload = "auto";
  video.playsInline = true;
  try {
    const loaded = waitFor(video, "loadeddata");
    video.src = url;
    await loaded;
    const duration = Number.isFinite(video.duration) && video.duration > 0 ? video.duration : null;
    const at = duration === null ? 0 : Math.min(1, duration / 3);
    if (at > 0) {
      const seeked = waitFor(video, "seeked");
      video.currentTime = at;
      await seeked;
    }
    return { duration, thumbnail: await grabFrame(video) };
  } finally {
    video.removeAttribute("src");
    video.load();
    URL.revokeObjectURL(url);
  }
}

/** A title from a file name: `my_first-clip.mp4` -> `my first clip`. */
export const titleFromFileName = (name: string) =>
  name
    .replace(/\.[^.]+$/, "")
    .replace(/[_-]+/g, " ")
    .trim() || name;

/** An external id from a file name: `My Clip (2).mp4` -> `my-clip-2`. */
export const externalIdFromFileName = (name: string) =>
  name
    .replace(/\.[^.]+$/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 200) || "video";
