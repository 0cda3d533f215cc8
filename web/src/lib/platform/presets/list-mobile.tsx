import { listPreset } from "./list.tsx";

/** Preset `list-mobile`: the list family for mobiles. */
export default listPreset("mobile");
