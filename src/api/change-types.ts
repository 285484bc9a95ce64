/** The change types of spec 2.5: one list for the client, the config and the emulator. */
export const CHANGE_TYPES = [
  "profile_update",
  "headline_change",
  "title_change",
  "open_to_work",
  "new_skills",
  "location_change",
  "photo_or_summary",
  "edit_activity",
  "experience_change",
  "employee_departed",
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];
