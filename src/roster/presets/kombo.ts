import { LINKEDIN_KEYS, LINKEDIN_LABELS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";
import { UNIFIED_HRIS_PERSON_FIELDS } from "./unified-hris-fields.js";

/**
 * Kombo's unified HRIS API, `GET /v1/hris/employees` (with `include_deleted=true`): a page
 * `{ status: "success", data: { next, results: [employee] } }`. Field names and enums are those of
 * Kombo's API reference (docs.kombo.dev, "Get employees") and its published OpenAPI schema
 * (`GetHrisEmployeesPositiveResponse`, also in Kombo's generated SDKs).
 */

export const komboPreset: RosterPreset = {
  name: "kombo",
  title: "Kombo (unified HRIS API, GET /hris/employees)",
  fields: {
    // Kombo has no LinkedIn field. It comes through a Kombo custom field (a key the Kombo customer
    // names in `custom_fields`, mapped per integration to the HRIS field) or a passthrough
    // integration field (`integration_fields: [{ id, key, type, value, label }]`, `key` being the
    // HRIS's own field key and `label` its display name).
    profileUrl: [
      ...LINKEDIN_KEYS.map((key) => `custom_fields.${key}`),
      ...LINKEDIN_LABELS.map((label) => `integration_fields[label=${label}].value`),
    ],
    // `groups` (type DEPARTMENT | TEAM | COST_CENTER) and `manager` are always embedded.
    ...UNIFIED_HRIS_PERSON_FIELDS,
    title: ["job_title"],
    location: ["work_location.name"],
    // ACTIVE | PENDING | INACTIVE | LEAVE: INACTIVE reads as left, LEAVE (still employed) is in
    // scope, PENDING (contract signed, not started) is out of scope.
    status: ["employment_status"],
    // FULL_TIME | PART_TIME | CONTRACT | INTERNSHIP | FREELANCE | WORKING_STUDENT | APPRENTICESHIP |
    // TRAINING: only full- and part-time are in scope by default.
    employmentStatus: ["employment_type"],
    // `remote_deleted_at` first: set (a past time) when Kombo can no longer find the employee in the
    // HRIS (returned with include_deleted=true), so a deleted person with an end date still to come
    // reads as left. Else `termination_date`: "the date when the employment ends. Can be in the past
    // or future." (An empty or null value reads as absent, so the next path is tried.)
    terminationDate: ["remote_deleted_at", "termination_date"],
  },
  ignore: [
    // Past and present positions: the employee's own `employment_type` is the current one.
    "employments.*.employment_type",
    // Deletion times of related records (a position, a balance, a location), not of the person.
    "employments.*.remote_deleted_at",
    "time_off_balances.*.remote_deleted_at",
    "work_location.remote_deleted_at",
    // The embedded manager's own status and end date.
    "manager.employment_status",
    "manager.termination_date",
    // The raw HRIS payload (keyed by the HRIS endpoint path, plan-dependent): Kombo normalises its
    // status into `employment_status`, which is read.
    "remote_data",
    "employments.*.remote_data",
  ],
  values: {
    CONTRACT: "contractor",
    INTERNSHIP: "intern",
  },
  recognise: [
    {
      // `remote_deleted_at` and `changed_at` are Kombo's; Merge sends `remote_was_deleted`.
      keys: ["remote_id", "display_full_name", "employment_status", "remote_deleted_at", "changed_at"],
      recordsAt: ["data.results"],
    },
  ],
};
