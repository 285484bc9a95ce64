import type { RosterPreset } from "./preset.js";

/**
 * BambooHR, as its public API reference and field list describe it
 * (documentation.bamboohr.com; the OpenAPI file `specs/public.yaml` of BambooHR/bhr-api-python):
 *
 * - Request Custom Report, `POST /api/gateway.php/{companyDomain}/v1/reports/custom?format=JSON`
 *   (a saved report, `GET .../v1/reports/{id}?format=JSON`, has the same shape):
 *   `{ "title", "fields": [{ "id", "type", "name" }], "employees": [{ "id", <field id>: "..." }] }`.
 *   The keys of a record are the requested field names (`status`, `employmentHistoryStatus`,
 *   `workEmail`, ...); a custom field's key is its API alias, `custom` + its name in letters and
 *   digits (`customLinkedInURL` for a field named "LinkedIn URL"). Empty dates come as `0000-00-00`.
 * - The same report with `format=CSV`: one column per field, headed by the field's `name` (the
 *   label: "Employee #", "Status", "Employment Status", a custom field's own name...).
 * - Get Data from Dataset (v2), `POST /api/v2/datasets/{datasetName}/data`:
 *   `{ "data": [{ "fields": { <field name>: "..." } }], "links": {...}, "meta": {...} }`; the reader
 *   unwraps `fields`. Dataset field names are listed by Get Fields from Dataset (v1.2).
 * - Get Employees Directory, `GET .../v1/employees/directory`: `{ "fields": [...], "employees": [...] }`,
 *   active employees only and no status field at all.
 *
 * Entries are JSON keys and CSV headers at once: names compare ignoring case, spaces, `_` and `-`,
 * so `workEmail` also finds a "Work Email" column.
 */
export const bamboohrPreset: RosterPreset = {
  name: "bamboohr",
  title: "BambooHR (custom report, datasets API or directory)",
  fields: {
    // The directory's standard field is `linkedIn` (a LinkedIn URL; integrators' listings of the
    // directory show it); the v1 employees list calls it `linkedinUrl`. Many companies keep LinkedIn
    // in a custom field instead: its API alias is `custom` + the field's name, its CSV header the
    // name itself ("LinkedIn" and "LinkedIn URL" match the first two entries).
    profileUrl: [
      "linkedIn",
      "linkedinUrl",
      "customLinkedIn",
      "customLinkedInURL",
      "customLinkedInProfile",
      "customLinkedInProfileURL",
      "LinkedIn Profile",
      "LinkedIn Profile URL",
    ],
    // `employeeNumber` ("Employee #") is the number the company assigns; `id` is BambooHR's own.
    employeeId: ["employeeNumber", "Employee #", "id"],
    // `displayName` is read-only and formatted as the account chose; `fullName1` is "First Last".
    // Without either (the datasets API's example row has `firstName` and `lastNameFirstName`,
    // "Panda, Pudgy"), the name is first name and last name.
    name: ["displayName", "fullName1"],
    firstName: ["firstName"],
    lastName: ["lastName"],
    email: ["workEmail"],
    department: ["department"],
    title: ["jobTitle"],
    location: ["location"],
    managerEmail: ["supervisorEmail"],
    // `status` is the employee record's status, Active or Inactive ("Inactive ... means that they are
    // no longer employed"; future hires are Inactive in the datasets API too, so they wait).
    status: ["status"],
    // `employmentHistoryStatus` ("Employment Status") is the current row of the employment status
    // table: Full-Time, Part-Time, Contractor, Intern, Terminated, ... (options customised per
    // account). Reading only `status` once planned 16 terminated people and 4 contractors/interns.
    employmentStatus: ["employmentHistoryStatus", "Employment Status"],
    // Read-only, filled from the employment status table; `0000-00-00` when there is none.
    terminationDate: ["terminationDate"],
  },
  ignore: [
    // The ACA (Affordable Care Act) category, computed from the employment status read above
    // ("contractor", "full-time", "part-time-eligible", ...): a benefits classification.
    "acaStatusCategory",
    "acaStatus",
  ],
  recognise: [
    // Custom report (JSON): the employment status under BambooHR's own field name.
    { recordsAt: ["employees"], keys: ["employmentHistoryStatus"] },
    // Custom report (JSON) without it: the supervisor's email is a BambooHR field name too.
    { recordsAt: ["employees"], keys: ["workEmail", "supervisorEmail", "status"] },
    // Directory: photo fields only BambooHR's directory sends.
    { recordsAt: ["employees"], keys: ["workEmail", "photoUploaded", "canUploadPhoto"] },
    // Datasets v2: rows wrapped as { "fields": {...} } under `data`.
    { recordsAt: ["data"], keys: ["fields.employeeNumber", "fields.status"] },
    { recordsAt: ["data"], keys: ["employeeNumber", "status", "lastNameFirstName"] },
    // Custom report (CSV): the labels "Employee #" and "Employment Status".
    { headers: ["Employee #", "Employment Status"] },
    { headers: ["Employee #", "Status", "Work Email"] },
  ],
};
