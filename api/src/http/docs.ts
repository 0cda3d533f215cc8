import { createRequire } from "node:module";
import path from "node:path";
import type { Middleware } from "koa";
import type { AppState } from "./context.ts";
import { serveFolder } from "./static.ts";

const require = createRequire(import.meta.url);
const swaggerDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Feedlab API reference</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<main id="swagger-ui" aria-label="Feedlab API reference"></main>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true, withCredentials: true });`;

/** The API reader at /api/docs: Swagger UI served locally (no CDN; the network may be closed). */
export function docsMiddleware(): Middleware<AppState> {
  const assets = serveFolder("/api/docs/assets/", swaggerDir, 86400);
  return async (ctx, next) => {
    if (ctx.path === "/api/docs" || ctx.path === "/api/docs/") {
      ctx.type = "html";
      ctx.body = PAGE;
      return;
    }
    if (ctx.path === "/api/docs/init.js") {
      ctx.type = "application/javascript";
      ctx.body = INIT;
      return;
    }
    return assets(ctx, next);
  };
}
