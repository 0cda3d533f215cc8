/**
 * The participant shell: the feed (`/`) and watch (`/watch/{id}`) pages as a small app of their own,
 * without SvelteKit, so a participant downloads only what these pages use (the admin console and the
 * join page stay in the SvelteKit app). Built by vite.participant.config.ts into build/participant.html,
 * which the API serves for those paths (api/src/http/static.ts).
 */
import "../app.css";
import { mount } from "svelte";
import { participantLanguage } from "#lib/i18n/messages.svelte.ts";
import { router } from "./router.svelte.ts";
import Shell from "./shell.svelte";

const target = document.getElementById("participant");
if (!target) throw new Error("participant.html has no #participant element");
// The browser's language is the likely one: its catalogue loads while the page asks the server which
// is the participant's (pages.ts then uses that one).
void participantLanguage.useVisitorLanguage();
mount(Shell, { target });
router.start();
