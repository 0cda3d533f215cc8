import { describe, expect, it } from "vitest";
import {
  externalIdFromFileName,
  notAVideoMessage,
  ProbeError,
  probeFailureMessage,
  titleFromFileName,
} from "./media-probe.ts";

describe("names from an uploaded file's name", () => {
  it("makes a title without the extension and separators", () => {
    expect(titleFromFileName("my_first-clip.mp4")).toBe("my first clip");
    expect(titleFromFileName(".mp4")).toBe(".mp4");
  });

  it("makes an external id of lower-case words and dashes", () => {
    expect(externalIdFromFileName("My Clip (2).MP4")).toBe("my-clip-2");
    expect(externalIdFromFileName("Ünïcode only.webm")).toBe("n-code-only");
    expect(externalIdFromFileName("___.webm")).toBe("video");
  });
});

describe("what the upload dialog says of a file it cannot use", () => {
  it("names a file the browser cannot play in plain words, without the browser's internal error", () => {
    const error = new ProbeError(
      "unplayable",
      "PipelineStatus::DEMUXER_ERROR_COULD_NOT_OPEN: FFmpegDemuxer: open context failed",
    );
    const message = probeFailureMessage("notes.txt", error);
    expect(message).toBe("“notes.txt” is not a video Feedlab can play: choose an MP4 or WebM file.");
    expect(message).not.toMatch(/DEMUXER|Pipeline/);
    expect(notAVideoMessage("notes.txt")).toBe(message);
  });

  it("says the browser was too slow, not that the file is no video, when reading timed out", () => {
    expect(probeFailureMessage("long.mp4", new ProbeError("timeout"))).toMatch(
      /^This browser took too long to read “long\.mp4”\./,
    );
  });

  it("treats an unexpected failure as a file it cannot play", () => {
    expect(probeFailureMessage("odd.webm", new TypeError("boom"))).toBe(notAVideoMessage("odd.webm"));
  });
});
