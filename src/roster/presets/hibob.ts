import type { RosterPreset } from "./preset.js";

/**
 * HiBob (Bob) People API: `POST /v1/people/search` with `showInactive: true` answers
 * `{ "employees": [...] }` (all matches, no paging). Each employee carries the requested fields
 * twice: under slash keys (`"/work/department": { "value": ... }`) and in nested category objects
 * (`work.department`). List fields (department, site, title, lifecycle) hold list item ids, so ask
 * for `humanReadable: "APPEND"` (adds a `humanReadable` node with display values, read first here)
 * or `"REPLACE"` (display values in place). Docs: apidocs.hibob.com "Search for employees",
 * "People read API contract", "How to work with lists", "Fields and lists metadata"; help centre
 * "Employee lifecycle statuses". `GET /v1/people` was shut down in May 2025.
 */
export const hibobPreset: RosterPreset = {
  name: "hibob",
  title: "HiBob (People API search)",
  fields: {
    // Bob's own LinkedIn field: About > Social data > LinkedIn (field id about.socialData.linkedin).
    profileUrl: ["about.socialData.linkedin", "/about/socialData/linkedin.value"],
    employeeId: ["work.employeeIdInCompany", "/work/employeeIdInCompany.value", "id", "/root/id.value"],
    name: ["displayName", "/root/displayName.value", "fullName", "/root/fullName.value"],
    firstName: ["firstName", "/root/firstName.value"],
    // Bob calls the last name `surname`.
    lastName: ["surname", "/root/surname.value"],
    email: ["email", "/root/email.value"],
    department: ["humanReadable.work.department", "work.department", "/work/department.value"],
    title: ["humanReadable.work.title", "work.title", "/work/title.value"],
    location: ["humanReadable.work.site", "work.site", "/work/site.value"],
    // The default fields include the manager as an object with the email.
    managerEmail: ["work.reportsTo.email"],
    // The lifecycle status (Hired, Employed, Leave, Parental leave, Garden leave, Terminated) decides.
    // The Active/Inactive status is only the fallback when the lifecycle is missing: Bob sets
    // Inactive for people put on leave as well as for people who left (its "Employee inactivated"
    // event fires for both), so read first it would archive people on parental leave.
    status: [
      "humanReadable.internal.lifecycleStatus",
      "internal.lifecycleStatus",
      "/internal/lifecycleStatus.value",
      "humanReadable.internal.status",
      "internal.status",
      "/internal/status.value",
    ],
    // The machine value (ISO date); the humanReadable copy is in the reading user's date format.
    terminationDate: ["internal.terminationDate", "/internal/terminationDate.value"],
  },
  ignore: [
    // The same fields again, rendered for display: each is checked under its own key.
    "humanReadable",
    // The reason, type and time since a termination: the lifecycle status and date above decide.
    "internal.terminationReason",
    "/internal/terminationReason",
    "internal.terminationType",
    "/internal/terminationType",
    "internal.periodSinceTermination",
    "/internal/periodSinceTermination",
    "internal.yearsSinceTermination",
    "/internal/yearsSinceTermination",
    // When the current Active/Inactive status began: a date, not a status.
    "internal.currentActiveStatusStartDate",
    "/internal/currentActiveStatusStartDate",
    // Effective dates of the current entries of Bob's history tables (work, employment, salary).
    "work.activeEffectiveDate",
    "/work/activeEffectiveDate",
    "payroll.employment.activeEffectiveDate",
    "/payroll/employment/activeEffectiveDate",
    "payroll.salary.activeEffectiveDate",
    "/payroll/salary/activeEffectiveDate",
  ],
  values: {
    // Bob's lifecycle statuses as the words roster.include.statuses compares: Employed and Leave are
    // already such words; Hired (a start date still ahead, not billed by Bob) stays out of scope.
    "parental leave": "on leave",
    // Garden leave runs from the last day at work to the termination date: Bob's "Employee
    // terminated" event fires when someone is terminated or put on garden leave, whichever is first.
    "garden leave": "terminated",
  },
  recognise: [
    { recordsAt: ["employees"], keys: ["internal.lifecycleStatus"] },
    { recordsAt: ["employees"], keys: ["/internal/lifecycleStatus"] },
    { recordsAt: ["employees"], keys: ["/root/id"] },
    { recordsAt: ["employees"], keys: ["surname", "work.title"] },
    { recordsAt: ["employees"], keys: ["about.socialData"] },
  ],
};
