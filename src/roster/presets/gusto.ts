import { LINKEDIN_LABELS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";

// Gusto, `GET /v1/companies/{company_id}/employees?include=custom_fields`: a top-level array of
// Employee objects (found on its own). Field names and values follow Gusto's OpenAPI description
// (schemas Employee, Job, Termination, Employee-Custom-Field, Show-Employees), as published with
// Gusto's API reference and its generated TypeScript client (github.com/Gusto/gusto-typescript-client).

// Gusto has no LinkedIn field: it is a company custom field, listed per employee in `custom_fields`
// as {id, company_custom_field_id, name, type, description, value} when `include=custom_fields` is
// asked for. Gusto's own examples name custom fields in lower case with underscores (`employee_level`).
const LINKEDIN_NAMES = [...LINKEDIN_LABELS, "linkedin_url"];

// The primary job: an employee may have several, and `primary` marks the main one.
const PRIMARY_JOB = "jobs[primary=true]";

export const gustoPreset: RosterPreset = {
  name: "gusto",
  title: "Gusto (employees API)",
  fields: {
    profileUrl: LINKEDIN_NAMES.map((name) => `custom_fields[name=${name}].value`),
    employeeId: ["uuid"],
    // No full name: the roster builds it from the first and last names.
    firstName: ["first_name"],
    lastName: ["last_name"],
    // `email` is the personal address; `work_email` the work one.
    email: ["work_email"],
    department: ["department"],
    title: [`${PRIMARY_JOB}.title`, "jobs.0.title", "title"],
    location: [`${PRIMARY_JOB}.location.city`, "jobs.0.location.city"],
    // onboarding_completed once set up; before, admin_onboarding_incomplete or self_onboarding_...:
    // an employee still onboarding is out of scope until Gusto marks it done. null (Gusto's schema
    // allows it) reads as no status.
    status: ["onboarding_status"],
    // full_time, part_time_under_twenty_hours, part_time_twenty_plus_hours, variable, seasonal.
    employmentStatus: ["current_employment_status"],
    // "Whether the employee is terminated." Gusto's `terminated` list filter also counts employees
    // scheduled to be terminated, so a leaver may read as left before their last day.
    left: ["terminated"],
  },
  values: {
    onboarding_completed: "active",
    part_time_under_twenty_hours: "part-time",
    part_time_twenty_plus_hours: "part-time",
  },
  // Keys whose name looks like a status or an end date; an ignored key covers the keys inside it.
  ignore: [
    // Termination records ({active, effective_date, cancelable, run_termination_payroll}); the
    // employee's own `terminated` flag is read instead. A rehired employee may keep an old
    // termination here (not confirmed), which would read as gone.
    "terminations",
    // Whether a time-off balance is paid out on termination: a policy setting.
    "eligible_paid_time_off.*.paid_at_termination",
    // Whether a garnishment (a court-ordered deduction) is in force.
    "garnishments.*.active",
    // Whether a home address is the current one (include=current_home_address, all_home_addresses).
    "current_home_address.active",
    "all_home_addresses.*.active",
    // Whether the company's work location still exists.
    "jobs.*.location.active",
    "jobs.*.location.inactive",
    // The invitation to Gusto's member portal (include=portal_invitations).
    "member_portal_invitation_status",
  ],
  recognise: [
    { keys: ["uuid", "first_name", "last_name", "onboarding_status", "terminated", "jobs"] },
    { keys: ["uuid", "first_name", "last_name", "onboarded", "terminated"] },
  ],
};
