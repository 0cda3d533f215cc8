import { gridPreset } from "./grid.tsx";

/** Preset `grid-mobile`: the grid family for mobiles. */
export default gridPreset("mobile");
