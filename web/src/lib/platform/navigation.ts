/**
 * A navigation between the participant pages, as the participant shell's router announces it before
 * the next page loads: `to` is where it goes, `from` the URL of the page being left (null on the
 * first page). On a history traversal the location already shows `to`.
 */
export interface Navigation {
  readonly from: URL | null;
  readonly to: URL;
}

type BeforeNavigate = (navigation: Navigation) => void;

const hooks = new Set<BeforeNavigate>();

/**
 * Runs `hook` before each in-app navigation (not on document unloads: the tracking core follows those
 * itself). Returns the function that unregisters it.
 */
export function beforeNavigate(hook: BeforeNavigate): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** Called by the router once per navigation, before it loads the next page. */
export function announceNavigation(navigation: Navigation): void {
  for (const hook of [...hooks]) {
    try {
      hook(navigation);
    } catch (error) {
      console.error("feedlab: a navigation hook failed", error);
    }
  }
}
