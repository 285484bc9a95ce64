import { LINKEDIN_KEYS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";

/**
 * Rippling has two documented employee APIs; this preset reads both (field names compare ignoring
 * case and `_`, so `endDate` also reads `end_date`):
 *
 * - The REST API, `GET https://rest.ripplingapis.com/workers` (Rippling's OpenAPI "Rippling Platform
 *   API"): a page `{ __meta, results: [Worker], next_link }`. Names, department, employment type and
 *   manager are ids unless asked for with `expand=user,department,employment_type,manager`.
 * - The older platform API, `GET https://api.rippling.com/platform/api/employees/include_terminated`
 *   (Rippling's OpenAPIDocs, "GET Employees (Including Terminated)"): a top-level array of Employee
 *   with `roleState`, `employmentType` codes and `customFields` keyed by the custom field's title.
 *
 * The REST Worker's `custom_fields` (expandable) is an array whose element shape Rippling's spec does
 * not document, so no LinkedIn path is read from it: name it in `roster.mapping.profileUrl`.
 */
const LINKEDIN_TITLES = LINKEDIN_KEYS;

export const ripplingPreset: RosterPreset = {
  name: "rippling",
  title: "Rippling (REST API GET /workers, or platform API GET /employees/include_terminated)",
  fields: {
    // Platform API: `customFields` is an object keyed by the custom field's title ("LinkedIn URL").
    profileUrl: LINKEDIN_TITLES.map((title) => `customFields.${title}`),
    // Platform API `employeeNumber`; REST `number` ("the worker's number within the organization").
    employeeId: ["employeeNumber", "number"],
    // Platform API `name`; REST only with `expand=user` (the User's display and full name).
    name: ["name", "user.display_name", "user.name.formatted"],
    firstName: ["firstName", "user.name.given_name"],
    lastName: ["lastName", "user.name.family_name"],
    email: ["workEmail"],
    // REST with `expand=department`: an object (so `.name` first); platform API: the name itself.
    department: ["department.name", "department"],
    title: ["title"],
    location: ["workLocationNickname", "workLocation.city"],
    // REST with `expand=manager`: the manager is a whole Worker. The platform API gives an id only.
    managerEmail: ["manager.work_email"],
    // Platform API `roleState`, REST `status`: INIT | HIRED | ACCEPTED | ACTIVE | TERMINATED.
    // TERMINATED reads as left; INIT, HIRED and ACCEPTED (not started yet) are out of scope.
    status: ["roleState", "status"],
    // REST with `expand=employment_type`: its `type` (EMPLOYEE | CONTRACTOR). Platform API:
    // `employmentType` (SALARIED_FT, HOURLY_PT, CONTRACTOR, TEMP...). Without the expansion a REST
    // worker carries only `employment_type_id`, read last on purpose: an id is no employment type,
    // so nobody is in scope and the run stops instead of counting contractors as employees.
    employmentStatus: ["employment_type.type", "employmentType", "employment_type_id"],
    // Platform API `endDate`, REST `end_date`: a date that has passed means the person left.
    terminationDate: ["endDate"],
  },
  // A path also covers everything under it (`companyEmploymentType` covers its `isDeleted`).
  ignore: [
    // REST: the type and free-text reason of a termination; `status` and `end_date` say whether
    // and when it happened.
    "termination_details",
    // REST, `expand=user`: whether the login account may access company resources, not employment.
    "user.active",
    // REST, `expand=manager`: the manager's own status, end date and employment type.
    "manager.status",
    "manager.end_date",
    "manager.termination_details",
    "manager.employment_type_id",
    "manager.employment_type",
    // Platform API: the company's definition of the employment type (its flags, its deletion
    // state, the types it may change to); the code in `employmentType` is read.
    "companyEmploymentType",
    // Platform API: the health savings account plan enrolment (a benefit).
    "hsaCompatiblePlanStatus",
  ],
  values: {
    SALARIED_FT: "full-time",
    HOURLY_FT: "full-time",
    SALARIED_PT: "part-time",
    HOURLY_PT: "part-time",
    CONTRACTOR: "contractor",
    TEMP: "temporary",
    EMPLOYEE: "employee",
  },
  recognise: [
    // Platform API: `roleState` is Rippling's own name.
    { keys: ["roleState", "employmentType", "workEmail", "customFields"] },
    // REST API: the Worker's id references.
    { keys: ["status", "employment_type_id", "user_id", "legal_entity_id"], recordsAt: ["results"] },
  ],
};
