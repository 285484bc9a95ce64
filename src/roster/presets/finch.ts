import { LINKEDIN_LABELS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";

// Finch, the employment endpoint (`POST /employer/employment`): `{"responses": [{"individual_id",
// "code", "body": {...}}]}`, one employment record per `body`. Field names and values follow Finch's
// API reference (developer.tryfinch.com, Organization > Employment and Directory) and the types of
// its generated SDK (github.com/Finch-API/finch-api-node, src/resources/hris/employments.ts).
// The directory (`GET /employer/directory`, `{"paging", "individuals": [...]}`) carries names,
// department, manager and is_active but no custom fields, so no LinkedIn: it is recognised, but
// only the employment answer can fill a roster.

// LinkedIn is an employer-defined custom field: `custom_fields: [{name, value}]`.
const LINKEDIN_NAMES = [...LINKEDIN_LABELS, "linkedin_url"];

export const finchPreset: RosterPreset = {
  name: "finch",
  title: "Finch (employment API)",
  // Where the employment (and individual) answers keep their records.
  records: "responses.*.body",
  fields: {
    profileUrl: LINKEDIN_NAMES.map((name) => `custom_fields[name=${name}].value`),
    // Finch's stable individual id; source_id is the provider's own.
    employeeId: ["id"],
    firstName: ["first_name"],
    lastName: ["last_name"],
    title: ["title"],
    department: ["department.name"],
    location: ["location.city"],
    // employment_status: active, deceased, leave, onboarding, prehire, retired, terminated (null
    // where the provider does not say); then is_active, "true if the individual is an active
    // employee or contractor at the company".
    status: ["employment_status", "is_active"],
    // employment.subtype: full_time, part_time, intern, temp, seasonal, individual_contractor;
    // without one, employment.type: employee or contractor.
    employmentStatus: ["employment.subtype", "employment.type"],
    terminationDate: ["end_date"],
  },
  values: {
    employee: "employed",
    individual_contractor: "contractor",
  },
  recognise: [
    { recordsAt: ["responses.*.body"], keys: ["id", "employment", "is_active"] },
    { recordsAt: ["individuals"], keys: ["id", "first_name", "last_name", "is_active"] },
  ],
};
