/** A catalogue compiled by vite.messages.ts: one function per message. */
declare module "*.json?messages" {
  const messages: Readonly<Record<string, (params?: Readonly<Record<string, string | number>>) => string>>;
  export default messages;
}
