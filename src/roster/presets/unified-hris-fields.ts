import type { RosterPreset } from "./preset.js";

/**
 * The person fields that Merge's and Kombo's unified HRIS APIs name alike, read the same way by
 * both presets. Status, dates, title and location differ between the two and stay in each preset.
 */
export const UNIFIED_HRIS_PERSON_FIELDS = {
  // `employee_number` is the number shown in the HRIS; `remote_id` the HRIS's own id.
  employeeId: ["employee_number", "remote_id"],
  name: ["display_full_name"],
  firstName: ["first_name"],
  lastName: ["last_name"],
  email: ["work_email"],
  // Groups are { id, remote_id, name, type }; a DEPARTMENT group names the department.
  department: ["groups[type=DEPARTMENT].name"],
  managerEmail: ["manager.work_email"],
} as const satisfies RosterPreset["fields"];
