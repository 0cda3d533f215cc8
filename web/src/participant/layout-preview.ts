/**
 * The layout preview's document: the console's editor shows it in an iframe sandboxed without
 * `allow-same-origin` (lib/platform/preview-protocol.ts) and sends it the compiled module, the page and
 * the pool's videos; it renders them with the participant pages' runtime, whose requests a preview
 * client answers from those videos, and reports back what happened and which events it would send.
 * The layout's code runs here, in an origin of its own, never in the console's window.
 */
import "../app.css";
import { participantLanguage } from "#lib/i18n/messages.svelte.ts";
import { mountLayout } from "#lib/platform/mount.ts";
import type { Layout } from "#lib/platform/presets/index.ts";
import { asRender, type PreviewRender, type PreviewReport } from "#lib/platform/preview-protocol.ts";
import { previewRuntime } from "#lib/platform/preview-runtime.ts";
import { providePlatformModules } from "#lib/platform/templates.ts";

const report = (message: PreviewReport) => window.parent.postMessage(message, "*");

let current: (() => void) | null = null;
/** Renders of a newer message supersede older ones still loading. */
let generation = 0;

async function render({ code, page, videos }: PreviewRender): Promise<void> {
  const mine = ++generation;
  current?.();
  current = null;
  const host = document.createElement("div");
  document.body.append(host);
  const runtime = previewRuntime(videos, (batch) =>
    report({ kind: "feedlab-preview:events", types: batch.map((e) => e.event_type) }),
  );
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  let unmount: (() => void) | null = null;
  const dispose = () => {
    unmount?.();
    host.remove();
    runtime.dispose();
  };
  current = dispose;
  try {
    // The console previews in English, the participant pages' default.
    await Promise.all([providePlatformModules(true), participantLanguage.use("en")]);
    const mod = (await import(/* @vite-ignore */ url)) as { default?: unknown };
    if (mine !== generation) return;
    if (typeof mod.default !== "function") throw new Error("The module's default export is not a component.");
    const props = page === "watch" ? { videoId: videos[0]?.id ?? "" } : {};
    unmount = mountLayout(host, runtime, mod.default as Layout, props);
    report({ kind: "feedlab-preview:rendered" });
  } catch (error) {
    if (mine === generation)
      report({
        kind: "feedlab-preview:failed",
        message: error instanceof Error ? error.message : String(error),
      });
  } finally {
    URL.revokeObjectURL(url);
  }
}

window.addEventListener("message", (event) => {
  // Only the console that framed this document asks for renders.
  if (event.source !== window.parent) return;
  const message = asRender(event.data);
  if (message) void render(message);
});
// Said once loaded: the console hears it after the frame's load event, which tells it a new document began.
window.addEventListener("load", () => report({ kind: "feedlab-preview:ready" }));
