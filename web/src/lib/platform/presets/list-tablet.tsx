import { listPreset } from "./list.tsx";

/** Preset `list-tablet`: the list family for tablets. */
export default listPreset("tablet");
