import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AdminSettings } from "../../types.ts";
import { PublicUrl } from "./public-url.svelte.ts";

const EXPERIMENT = "6f1c1f7e-8a52-4f7e-9a51-0d3b2c1e5a10";

const settings = (over: Partial<AdminSettings> = {}): AdminSettings => ({
  public_url: "https://study.example.org",
  public_url_reachable: true,
  public_url_problem: null,
  version: "0.2.0",
  ...over,
});

describe("the public URL every study link starts with", () => {
  beforeEach(() => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("builds study links on the server's public URL once it has loaded", async () => {
    const url = new PublicUrl(async () => settings());
    expect(url.studyLink(EXPERIMENT)).toBe(`/join/${EXPERIMENT}`);
    url.load();
    await vi.waitFor(() => expect(url.settings).not.toBeNull());
    expect(url.studyLink(EXPERIMENT)).toBe(`https://study.example.org/join/${EXPERIMENT}`);
    expect(url.problem).toBeNull();
  });

  it("reads the settings once however many cards ask", async () => {
    const read = vi.fn(async () => settings());
    const url = new PublicUrl(read);
    url.load();
    url.load();
    await vi.waitFor(() => expect(url.settings).not.toBeNull());
    url.load();
    expect(read).toHaveBeenCalledTimes(1);
  });

  it("tries again on the next card's load after a failed one", async () => {
    const read = vi
      .fn<() => Promise<AdminSettings>>()
      .mockRejectedValueOnce(new TypeError("Failed to fetch"));
    read.mockResolvedValueOnce(settings());
    const url = new PublicUrl(read);
    url.load();
    await vi.waitFor(() => expect(console.error).toHaveBeenCalled());
    expect(url.settings).toBeNull();
    url.load();
    await vi.waitFor(() => expect(url.settings).not.toBeNull());
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("says why other networks cannot open the links, in the server's words or its own", async () => {
    const url = new PublicUrl(async () =>
      settings({
        public_url: "http://localhost:8080",
        public_url_reachable: false,
        public_url_problem: "It is localhost.",
      }),
    );
    url.load();
    await vi.waitFor(() => expect(url.problem).toBe("It is localhost."));

    const silent = new PublicUrl(async () =>
      settings({ public_url: "http://10.0.0.2", public_url_reachable: false, public_url_problem: null }),
    );
    silent.load();
    await vi.waitFor(() =>
      expect(silent.problem).toBe("http://10.0.0.2 cannot be opened from other networks."),
    );
  });
});
