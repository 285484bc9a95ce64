import { adpPreset } from "./adp.js";
import { bamboohrPreset } from "./bamboohr.js";
import { finchPreset } from "./finch.js";
import { genericPreset } from "./generic.js";
import { gustoPreset } from "./gusto.js";
import { hibobPreset } from "./hibob.js";
import { komboPreset } from "./kombo.js";
import { mergePreset } from "./merge.js";
import type { PresetName } from "./names.js";
import { personioPreset } from "./personio.js";
import type { RosterPreset } from "./preset.js";
import { ripplingPreset } from "./rippling.js";
import { successfactorsPreset } from "./successfactors.js";
import { workdayPreset } from "./workday.js";

/** Every preset by name; `auto` tries the vendors' signatures in this order (ties go to the first). */
export const PRESETS: Readonly<Record<PresetName, RosterPreset>> = {
  generic: genericPreset,
  bamboohr: bamboohrPreset,
  workday: workdayPreset,
  hibob: hibobPreset,
  personio: personioPreset,
  successfactors: successfactorsPreset,
  adp: adpPreset,
  gusto: gustoPreset,
  merge: mergePreset,
  kombo: komboPreset,
  finch: finchPreset,
  rippling: ripplingPreset,
};
