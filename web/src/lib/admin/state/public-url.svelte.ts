import { api } from "../../api/client.ts";
import { settingsApi } from "../../api/settings.ts";
import type { AdminSettings } from "../../types.ts";

/**
 * The address every study link starts with (`GET /api/v1/admin/settings`: FEEDLAB_PUBLIC_URL, not the
 * address in this browser's bar), loaded once and shared by the cards that show links.
 */
export class PublicUrl {
  settings = $state<AdminSettings | null>(null);
  #loading: Promise<void> | null = null;
  readonly #read: () => Promise<AdminSettings>;

  /** `read` fetches the settings (the admin API's, unless a test passes its own). */
  constructor(read: () => Promise<AdminSettings> = () => settingsApi.get(api)) {
    this.#read = read;
  }

  /** Loads the settings the first time a card asks; a failed load is tried again by the next card. */
  load(): void {
    this.#loading ??= this.#read().then(
      (settings) => {
        this.settings = settings;
      },
      (error: unknown) => {
        console.error("The public URL was not loaded; links use this page's address", error);
        this.#loading = null;
      },
    );
  }

  /** The public URL, or this page's origin until it has loaded (or when it could not be). */
  get base(): string {
    if (this.settings) return this.settings.public_url;
    return typeof window === "undefined" ? "" : window.location.origin;
  }

  /** Why recruiting platforms and participants elsewhere cannot open the links; null when they can. */
  get problem(): string | null {
    const settings = this.settings;
    if (!settings || settings.public_url_reachable) return null;
    return settings.public_url_problem ?? `${settings.public_url} cannot be opened from other networks.`;
  }

  /** The study link of an experiment, where participants type their own ID. */
  studyLink(experimentId: string): string {
    return `${this.base}/join/${experimentId}`;
  }
}

export const publicUrl = new PublicUrl();
