// See https://svelte.dev/docs/kit/types#app.d.ts
declare global {
  namespace App {
    interface Error {
      message: string;
      /** The api.md error code when the failure came from the API. */
      code?: string;
    }
  }
}

export {};
