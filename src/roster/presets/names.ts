/** What `roster.mapping` can name: `auto` recognises the export, `generic` is the default header names. */
export const VENDOR_PRESETS = [
  "bamboohr",
  "workday",
  "hibob",
  "personio",
  "successfactors",
  "adp",
  "gusto",
  "merge",
  "kombo",
  "finch",
  "rippling",
] as const;
export const PRESET_NAMES = ["generic", ...VENDOR_PRESETS] as const;
export type PresetName = (typeof PRESET_NAMES)[number];
export const MAPPING_NAMES = ["auto", ...PRESET_NAMES] as const;
export type MappingName = (typeof MAPPING_NAMES)[number];
