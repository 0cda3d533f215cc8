import { Component, type ComponentChildren, h, render } from "preact";
import { participantLanguage, t } from "../i18n/messages.svelte.ts";
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
      ? h("p", { role: "alert", class: "feedlab-layout-error" }, t("layout.failed"))
      : this.props.children;
  }
}

/**
 * Renders a layout into `element` with the runtime in context; returns the function that unmounts it.
 * A change of language renders it again in place (new elements, same components): every `t` call reads
 * the new catalogue while the components keep their state and their effects, so no event is sent twice.
 */
export function mountLayout(
  element: HTMLElement,
  runtime: PlatformRuntime,
  layout: Layout,
  props: Record<string, unknown>,
): () => void {
  const draw = () =>
    render(
      h(
        RuntimeContext.Provider,
        { value: runtime },
        h(LayoutBoundary, null, h(layout as Layout & string, { ...props })),
      ),
      element,
    );
  draw();
  const stop = participantLanguage.subscribe(draw);
  return () => {
    stop();
    render(null, element);
  };
}
