import { gridPreset } from "./grid.tsx";

/** Preset `grid-tablet`: the grid family for tablets. */
export default gridPreset("tablet");
