import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";

/**
 * Serves a stand-in of a video provider's player API script on a local port (browser tests of the
 * player adapters: the real provider is outside the system, and the network is closed).
 */
export async function serveProviderScript(pathname: string, script: string) {
  let served = 0;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith(pathname)) {
      served++;
      res.writeHead(200, { "content-type": "text/javascript", "access-control-allow-origin": "*" });
      res.end(script);
      return;
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${pathname}`,
    served: () => served,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Calls a hook of a stand-in provider (`window[name][action](...args)`): what a participant does in its iframe. */
export const providerAction = (page: Page, name: string, action: string, ...args: unknown[]) =>
  page.evaluate(
    ([n, a, rest]) =>
      (window as unknown as Record<string, Record<string, (...x: unknown[]) => void>>)[n as string]?.[
        a as string
      ]?.(...(rest as unknown[])),
    [name, action, args] as const,
  );
