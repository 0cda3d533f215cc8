import { isUuid } from "@feedlab/schemas/http/uuid.ts";
import { Component, type ComponentChildren, type ComponentType, h } from "preact";
import { participantApi } from "../participant-api.ts";
import type { ParticipantUiTemplate } from "../types.ts";
import {
  FALLBACK_PRESET,
  type Layout,
  loadLayout,
  type Page,
  registerLayoutResolver,
} from "./presets/index.ts";

/** The platform namespace compiled templates import from (`globalThis.__feedlab.modules`). */
declare global {
  var __feedlab: { modules: Record<string, unknown> } | undefined;
}

/** A UI key this browser cannot render: the page shows an error, never another layout in its place. */
class UnresolvableLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnresolvableLayoutError";
  }
}

let registry: Promise<Record<string, unknown>> | null = null;
let blocks: Promise<void> | null = null;

/**
 * Provides the platform namespace to compiled templates: the running runtime's own modules (one copy
 * of Preact, the surfaces and the hooks), loaded only on pages that render a template; the blocks
 * only when the template uses them (`withBlocks`).
 */
export async function providePlatformModules(withBlocks: boolean): Promise<void> {
  registry ??= Promise.all([
    import("preact/compat"),
    import("preact/jsx-runtime"),
    import("./data.ts"),
    import("./surfaces/index.ts"),
  ]).then(([react, jsxRuntime, data, surfaces]) => {
    const modules: Record<string, unknown> = {
      react,
      "react/jsx-runtime": jsxRuntime,
      "@feedlab/data": data,
      "@feedlab/surfaces": surfaces,
    };
    globalThis.__feedlab = { modules };
    return modules;
  });
  const modules = await registry;
  if (withBlocks) {
    blocks ??= import("./blocks/index.tsx").then((m) => {
      modules["@feedlab/blocks"] = m;
    });
    await blocks;
  }
}

interface BoundaryProps {
  readonly fallback: Layout;
  readonly layoutProps: Record<string, unknown>;
  readonly onError: (error: unknown) => void;
  readonly children?: ComponentChildren;
}

/**
 * A template that throws while rendering gives way to the plain fallback layout, which renders
 * through the same surfaces (so the page keeps tracking), and the error goes to the researcher.
 */
class TemplateBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };

  static override getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error("feedlab: the template failed while rendering; showing the plain layout", error);
    this.props.onError(error);
  }

  override render() {
    return this.state.failed
      ? h(this.props.fallback as ComponentType<Record<string, unknown>>, this.props.layoutProps)
      : this.props.children;
  }
}

/** Turns a template's compiled module into the page's layout, guarded by the boundary. */
function templateLayout(
  template: Pick<ParticipantUiTemplate, "id" | "version">,
  component: ComponentType<Record<string, unknown>>,
  fallback: Layout,
  report: (message: string) => void = (message) =>
    void participantApi
      .reportRenderError(template.id, { message, version: template.version })
      .catch(() => {}),
): Layout {
  let reported = false;
  const onError = (error: unknown) => {
    if (reported) return;
    reported = true;
    report(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  };
  return function TemplateLayout(props: Record<string, unknown>) {
    return h(TemplateBoundary, { fallback, layoutProps: props, onError }, h(component, props));
  } as Layout;
}

/** Loads a template of the participant's group for a page (spec: UI resolution, a UUID). */
async function loadTemplate(id: string, page: Page): Promise<Layout> {
  const template = await participantApi.uiTemplate(id);
  if (template.page !== page) {
    throw new UnresolvableLayoutError(
      `The UI template ${id} lays out the ${template.page} page, not the ${page} page.`,
    );
  }
  if (!template.module_url) {
    throw new UnresolvableLayoutError(`The UI template ${id} has no module this browser can render.`);
  }
  const moduleUrl = template.module_url;
  const [module, fallback] = await Promise.all([
    providePlatformModules(template.platform_modules.includes("@feedlab/blocks")).then(
      () => import(/* @vite-ignore */ moduleUrl) as Promise<{ default?: unknown }>,
    ),
    loadLayout(FALLBACK_PRESET, page),
  ]).catch((error: unknown) => {
    // The module itself failed (it threw while loading): the researcher sees it on the template.
    void participantApi
      .reportRenderError(id, { message: `Loading failed: ${String(error)}`, version: template.version })
      .catch(() => {});
    throw error;
  });
  if (typeof module.default !== "function") {
    throw new UnresolvableLayoutError(`The UI template ${id} does not export a page component.`);
  }
  return templateLayout(template, module.default as ComponentType<Record<string, unknown>>, fallback);
}

/** Template ids resolve through `loadTemplate`; register once per document. */
export function registerTemplateResolver(): void {
  registerLayoutResolver((key, page) => (isUuid(key) ? loadTemplate(key, page) : null));
}
