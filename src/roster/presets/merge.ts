import { LINKEDIN_KEYS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";
import { UNIFIED_HRIS_PERSON_FIELDS } from "./unified-hris-fields.js";

/**
 * Merge's unified HRIS API, `GET /api/hris/v1/employees` (with `include_deleted_data=true`): a page
 * `{ next, previous, results: [Employee] }`. The Employee object and its enums are those of Merge's
 * API reference (docs.merge.dev, "The Employee object") and of its generated SDKs (merge-node-client:
 * `Employee`, `Employment`, `Group`, `EmploymentStatusEnum`).
 *
 * Related objects (`manager`, `groups`, `employments`, `work_location`) are ids unless the call asks
 * for them with `expand=`; the paths below into them then read nothing (a string has no keys).
 */
const LINKEDIN_TARGETS = LINKEDIN_KEYS;

export const mergePreset: RosterPreset = {
  name: "merge",
  title: "Merge (unified HRIS API, GET /hris/v1/employees)",
  fields: {
    // Merge has no LinkedIn field. It comes through a Field Mapping: a target field that the Merge
    // customer names (Merge recommends snake_case), returned under
    // `field_mappings.organization_defined_targets` (organisation-wide targets) or
    // `field_mappings.linked_account_defined_targets` (one linked account's). Or through the
    // integration's own `custom_fields` object. Names compare ignoring case, spaces, `_` and `-`, so
    // `linkedin_url` also matches "LinkedIn URL".
    profileUrl: [
      ...LINKEDIN_TARGETS.map((key) => `field_mappings.organization_defined_targets.${key}`),
      ...LINKEDIN_TARGETS.map((key) => `field_mappings.linked_account_defined_targets.${key}`),
      ...LINKEDIN_TARGETS.map((key) => `custom_fields.${key}`),
    ],
    // The department only with `expand=groups`; the manager only with `expand=manager` (the manager
    // is then a whole Employee).
    ...UNIFIED_HRIS_PERSON_FIELDS,
    // Only with `expand=employments`. Merge says `effective_date` orders a person's employments; the
    // first one listed is read (see the docs page for people with several employments).
    title: ["employments.0.job_title"],
    // Only with `expand=work_location`.
    location: ["work_location.name", "work_location.city"],
    // ACTIVE | PENDING | INACTIVE. INACTIVE reads as left; PENDING (not started yet) is out of scope.
    status: ["employment_status"],
    // FULL_TIME | PART_TIME | INTERN | CONTRACTOR | FREELANCE, only with `expand=employments`.
    employmentStatus: ["employments.0.employment_type"],
    // Set when the record was deleted in the HRIS (seen with `include_deleted_data=true`).
    left: ["remote_was_deleted"],
    terminationDate: ["termination_date"],
  },
  ignore: [
    // Deletion flags of related records (an old position, a group, a location...), not of the
    // person: the person's own `remote_was_deleted` is read.
    "employments.*.remote_was_deleted",
    "groups.*.remote_was_deleted",
    "team.remote_was_deleted",
    "company.remote_was_deleted",
    "pay_group.remote_was_deleted",
    "work_location.remote_was_deleted",
    "home_location.remote_was_deleted",
    // An expanded manager is a whole Employee: its status and dates are the manager's own.
    "manager.employment_status",
    "manager.termination_date",
    "manager.remote_was_deleted",
    // The raw third-party payload (`include_remote_data=true`): Merge normalises its status into
    // `employment_status`, which is read.
    "remote_data",
    "manager.remote_data",
  ],
  // Merge's values already are the words the roster compares (ACTIVE, INACTIVE, FULL_TIME, ...).
  recognise: [
    {
      // `remote_was_deleted` is Merge's; Kombo sends `remote_deleted_at` instead.
      keys: ["remote_id", "display_full_name", "employment_status", "remote_was_deleted", "field_mappings"],
      recordsAt: ["results"],
    },
  ],
};
