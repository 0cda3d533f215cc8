import { describe, expect, it } from "vitest";
import { externalIdFromFileName, titleFromFileName } from "./media-probe.ts";

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
