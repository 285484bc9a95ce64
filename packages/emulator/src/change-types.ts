/**
 * The change types of spec 2.5 (`changeType`). A copy of the daemon's list (src/api/change-types.ts),
 * so this package depends on nothing of the daemon; test/api/emulator-spec-copies.test.ts keeps the
 * two equal.
 */
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
