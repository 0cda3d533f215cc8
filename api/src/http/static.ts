import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Middleware } from "koa";
import send from "send";
import { isConsolePath } from "./console-isolation.ts";
import type { AppState } from "./context.ts";
import { badRequest, rangeNotSatisfiable } from "./errors.ts";

/** A request path with its percent-escapes decoded; a malformed escape is the client's error (400). */
function decodedPath(urlPath: string): string {
  try {
    return decodeURIComponent(urlPath);
  } catch {
    throw badRequest("malformed_path", "The URL path has a malformed percent-escape.");
  }
}

/** Streams a file with Range, ETag and conditional GET support (the `send` package). */
const isFile = (file: string) => {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** Precompressed copies a build may hold beside a file, best first. */
const ENCODINGS = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

export function sendFile(
  ctx: Parameters<Middleware<AppState>>[0],
  root: string,
  relPath: string,
  options: { maxAgeSeconds: number; immutable?: boolean; precompressed?: boolean },
): Promise<boolean> {
  const full = path.join(root, relPath);
  if (!full.startsWith(root + path.sep) || !isFile(full)) return Promise.resolve(false);
  // A precompressed copy (web app builds) when the browser accepts it: same type, less to download.
  let served = relPath;
  if (options.precompressed) {
    ctx.vary("Accept-Encoding");
    const copy = ENCODINGS.find(
      (e) => ctx.acceptsEncodings(e.encoding, "identity") === e.encoding && isFile(full + e.suffix),
    );
    if (copy) {
      served = relPath + copy.suffix;
      ctx.set("Content-Encoding", copy.encoding);
      ctx.type = path.extname(relPath);
    }
  }
  return new Promise((resolve, reject) => {
    // Koa starts responses at 404; `send` adjusts 200 to 206 or 304 itself.
    ctx.status = 200;
    ctx.respond = false;
    const stream = send(ctx.req, served.split(path.sep).join("/"), {
      root,
      maxAge: options.maxAgeSeconds * 1000,
      immutable: options.immutable ?? false,
      dotfiles: "deny",
      index: false,
    });
    // `send` would name the type after the .br/.gz suffix; keep the original file's.
    if (served !== relPath)
      stream.on("headers", (res) => res.setHeader("Content-Type", ctx.response.get("Content-Type")));
    stream.on("error", (err: { status?: number; headers?: Record<string, string> }) => {
      ctx.respond = true;
      if (err.status === 416) reject(rangeNotSatisfiable(err.headers));
      else if (err.status && err.status < 500) resolve(false);
      else reject(err);
    });
    stream.on("end", () => resolve(true));
    stream.pipe(ctx.res);
  });
}

/** Serves files under a URL prefix from a folder. */
export function serveFolder(prefix: string, root: string, maxAgeSeconds: number): Middleware<AppState> {
  const absRoot = path.resolve(root);
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || !ctx.path.startsWith(prefix)) return next();
    const rel = decodedPath(ctx.path.slice(prefix.length));
    if (!(await sendFile(ctx, absRoot, path.normalize(rel), { maxAgeSeconds }))) return next();
  };
}

/**
 * CSP sources for the inline scripts of an HTML file (a Content-Security-Policy without
 * 'unsafe-inline'). Re-reads the file when it changes, so a rebuilt web app works without a restart.
 */
export function inlineScriptSources(htmlFile: string): () => string {
  let seen = -1;
  let sources = "";
  let checkedAt = 0;
  return () => {
    const now = Date.now();
    if (now - checkedAt < 1000) return sources;
    checkedAt = now;
    let mtime = 0;
    try {
      mtime = statSync(htmlFile).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime !== seen) {
      seen = mtime;
      sources = inlineScriptHashes(htmlFile).join(" ");
    }
    return sources;
  };
}

function inlineScriptHashes(htmlFile: string): string[] {
  let html: string;
  try {
    html = readFileSync(htmlFile, "utf8");
  } catch {
    return [];
  }
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
    const body = m[1] ?? "";
    if (body.trim() !== "") hashes.push(`'sha256-${createHash("sha256").update(body).digest("base64")}'`);
  }
  return hashes;
}

/**
 * The participant pages (`/` feed, `/watch/{id}`): the web build's participant shell serves them, a
 * small app of its own (web/src/participant) that carries none of the SvelteKit app's code.
 */
export const PARTICIPANT_SHELL = "participant.html";
/** The SvelteKit app's page, for every other page path (admin console, join page, errors). */
export const APP_SHELL = "index.html";

/** The console's page with its credential (a `<meta>` the console's code reads), never cached. */
function consolePage(root: string, credential: string): string | null {
  let html: string;
  try {
    html = readFileSync(path.join(root, APP_SHELL), "utf8");
  } catch {
    return null;
  }
  const meta = `<meta name="${CONSOLE_META}" content="${credential.replace(/[^A-Za-z0-9_-]/g, "")}">`;
  return html.replace(/<\/head>/i, `${meta}</head>`);
}

/** The console's page carries the admin's console credential (api/src/auth/console-credential.ts). */
const CONSOLE_META = "feedlab-console";

/** Mirrored in web/vite.shared.ts (`vite dev` serves the shell for the same paths). */
const isParticipantPage = (p: string) => /^\/(?:watch\/[^/]+)?$/.test(p);

/**
 * Serves the built web app: its files, the participant shell for the participant pages, and the
 * SvelteKit app's shell for every other page path. Content-hashed assets under `_app/immutable` are
 * cached for a year; the shells are never cached.
 */
export function serveWebApp(
  buildDir: string,
  isApiPath: (p: string) => boolean,
  /** The console credential for a console page's answer, or null (not a top-level load by an admin). */
  consoleCredential: (ctx: Parameters<Middleware<AppState>>[0]) => Promise<string | null> = async () => null,
): Middleware<AppState> {
  const root = path.resolve(buildDir);
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || isApiPath(ctx.path)) return next();
    const rel = path.normalize(decodedPath(ctx.path));
    const participantPage = isParticipantPage(ctx.path);
    if (!participantPage) {
      const immutable = rel.startsWith(`${path.sep}_app${path.sep}immutable${path.sep}`);
      if (
        await sendFile(ctx, root, rel, {
          maxAgeSeconds: immutable ? 31536000 : 0,
          immutable,
          precompressed: true,
        })
      )
        return;
    }
    if (isConsolePath(ctx.path)) {
      const credential = await consoleCredential(ctx);
      const page = credential === null ? null : consolePage(root, credential);
      if (page !== null) {
        // Never stored: a later `fetch` from another page must not find it in a cache.
        ctx.set("Cache-Control", "no-store");
        ctx.type = "html";
        ctx.body = page;
        return;
      }
    }
    ctx.set("Cache-Control", "no-cache");
    const shell = participantPage ? PARTICIPANT_SHELL : APP_SHELL;
    if (await sendFile(ctx, root, shell, { maxAgeSeconds: 0, precompressed: true })) return;
    ctx.status = 503;
    ctx.type = "text/plain";
    ctx.body = "The web app is not built. Run `npm run build` (npm start does this for you).";
  };
}
