import { Component, type ComponentChildren, h, render } from "preact";
import { RuntimeContext } from "./context.ts";
import type { Layout } from "./presets/index.ts";
import type { PlatformRuntime } from "./runtime.ts";

/** Keeps a failing layout from taking the page down with it: the participant sees a short notice. */
class LayoutBoundary extends Component<{ children: ComponentChildren }, { failed: boolean }> {
  override state = { failed: false };

  static override getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: unknown) {
    console.error("feedlab: the page layout failed", error);
  }

  override render() {
    return this.state.failed
      ? h(
          "p",
          { role: "alert", class: "feedlab-layout-error" },
          "This page could not be displayed. Please reload.",
        )
      : this.props.children;
  }
}

/** Renders a layout into `element` with the runtime in context; returns the function that unmounts it. */
export function mountLayout(
  element: HTMLElement,
  runtime: PlatformRuntime,
  layout: Layout,
  props: Record<string, unknown>,
): () => void {
  render(
    h(
      RuntimeContext.Provider,
      { value: runtime },
      h(LayoutBoundary, null, h(layout as Layout & string, props)),
    ),
    element,
  );
  return () => render(null, element);
}
