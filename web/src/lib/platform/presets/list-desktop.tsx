import { listPreset } from "./list.tsx";

/** Preset `list-desktop`: the list family for desktops. */
export default listPreset("desktop");
