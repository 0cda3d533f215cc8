/** The web unit tests' setup: Feedlab's strings in English, bundled as the console has them. */
import en from "../../participant/messages/en.json?messages";
import { participantLanguage } from "./messages.svelte.ts";

participantLanguage.provide("en", en);
