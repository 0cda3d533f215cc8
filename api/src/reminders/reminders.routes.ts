import { ErrorBody } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import type { ServiceDeps } from "../deps.ts";
import { notFound } from "../http/errors.ts";
import { route } from "../http/route.ts";
import { languageOf } from "../study/language.ts";
import { unsubscribedText } from "./messages.ts";
import { unsubscribe } from "./queries/contacts.queries.ts";

const TokenParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" }),
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `/unsubscribe/{token}`: the link in every reminder (api.md "Longitudinal studies (wave 4)"). GET is
 * what a participant clicks (a short page in their language); POST is RFC 8058's one-click unsubscribe
 * that mail clients send for `List-Unsubscribe-Post`. Both stop that participant's reminders, again and
 * again; an unknown token (or one erased with its participant) -> 404.
 */
export function reminderRoutes({ db, now }: ServiceDeps) {
  const stop = async (token: string): Promise<string> => {
    const userId = await unsubscribe(db, token, now());
    if (userId === null) throw notFound("unsubscribe link");
    const language = await languageOf(db, userId);
    return language?.language ?? "en";
  };
  const responses = {
    200: { description: "The participant gets no more reminders (again: the same)" },
    404: { description: "Unknown link", schema: ErrorBody },
  };
  return [
    route({
      method: "get",
      path: "/unsubscribe/{token}",
      tag: "participants",
      summary: "Stop a participant's reminders (the link in each reminder)",
      description:
        "Answers a short HTML page in the participant's language saying they will get no more reminders; they can still take part with their study link.",
      access: "public",
      params: TokenParams,
      responses,
      handler: async (ctx, { params }) => {
        const language = await stop(params.token);
        ctx.type = "text/html; charset=utf-8";
        ctx.body = `<!doctype html><html lang="${escapeHtml(language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Feedlab</title></head><body><main><h1>✓</h1><p>${escapeHtml(unsubscribedText(language))}</p></main></body></html>`;
      },
    }),
    route({
      method: "post",
      path: "/unsubscribe/{token}",
      tag: "participants",
      summary: "One-click unsubscribe (RFC 8058), sent by mail clients",
      access: "public",
      params: TokenParams,
      responses,
      handler: async (ctx, { params }) => {
        await stop(params.token);
        ctx.body = { unsubscribed: true };
      },
    }),
  ];
}
