/** A short message shown in the corner of the screen; errors stay until dismissed. */
export interface Toast {
  id: number;
  kind: "info" | "error";
  message: string;
}

const INFO_TIMEOUT_MS = 5000;

/** The app's toast queue, rendered once by the root layout. */
class NotificationManager {
  items = $state<Toast[]>([]);
  #nextId = 1;

  info(message: string): void {
    const id = this.#push("info", message);
    setTimeout(() => this.dismiss(id), INFO_TIMEOUT_MS);
  }

  error(message: string): void {
    this.#push("error", message);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((toast) => toast.id !== id);
  }

  #push(kind: Toast["kind"], message: string): number {
    const id = this.#nextId++;
    // Keep the queue short: the newest five are enough to understand what happened.
    this.items = [...this.items.slice(-4), { id, kind, message }];
    return id;
  }
}

export const notifications = new NotificationManager();
