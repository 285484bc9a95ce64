import type { RosterPreset } from "./preset.js";

/**
 * Personio Personnel Data API v1, `GET /v1/company/employees`: `{ "success": true, "metadata": {...},
 * "offset", "limit", "data": [ { "type": "Employee", "attributes": { "<key>": { "label", "value",
 * "type", "universal_id" } } } ] }` (personio/api-docs, personio-personnel-data-api-oa3.yaml).
 * Object-valued attributes (department, office, supervisor) hold `{ "type", "attributes" }` in
 * `value`. Custom attributes are `dynamic_<id>` keys whose label the customer chose, so there is no
 * standard LinkedIn path: set `profileUrl: ["attributes.dynamic_<id>.value"]` over this preset.
 * The v2 Persons API is not covered: status, termination and department live on each person's
 * employments, fetched one person at a time.
 */
export const personioPreset: RosterPreset = {
  name: "personio",
  title: "Personio (Personnel Data API v1 employees)",
  fields: {
    employeeId: ["attributes.id.value"],
    // "Name (preferred)": the full name the company uses (the API example holds first and last name).
    name: ["attributes.preferred_name.value"],
    firstName: ["attributes.first_name.value"],
    lastName: ["attributes.last_name.value"],
    email: ["attributes.email.value"],
    department: ["attributes.department.value.attributes.name"],
    // Personio's job title is `position`.
    title: ["attributes.position.value"],
    location: ["attributes.office.value.attributes.name"],
    // The supervisor is a short Employee object with label/value attributes of its own.
    managerEmail: ["attributes.supervisor.value.attributes.email.value"],
    // active, onboarding, leave or inactive (the values the API accepts for status).
    status: ["attributes.status.value"],
    // internal or external (external staff: freelancers, contractors).
    employmentStatus: ["attributes.employment_type.value"],
    terminationDate: ["attributes.termination_date.value"],
  },
  ignore: [
    // The kind of and reason for a termination: the status and the termination date decide.
    "attributes.termination_type",
    "attributes.termination_reason",
    // The agreed end of a fixed-term contract and the last day at work (garden leave, holidays
    // taken at the end): the employment itself ends on the termination date.
    "attributes.contract_end_date",
    "attributes.last_working_day",
  ],
  values: {
    internal: "employed",
    external: "contractor",
  },
  recognise: [
    { recordsAt: ["data"], keys: ["type", "attributes.first_name.value"] },
    { recordsAt: ["data"], keys: ["type", "attributes.email.value"] },
  ],
};
