import { gridPreset } from "./grid.tsx";

/** Preset `grid-desktop`: the grid family for desktops. */
export default gridPreset("desktop");
