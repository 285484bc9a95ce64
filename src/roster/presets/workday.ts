import type { RosterPreset } from "./preset.js";

/**
 * Workday custom reports, read through Report-as-a-Service (RaaS): an Advanced custom report with
 * "Enable As Web Service", fetched from
 * `https://{host}/ccx/service/customreport2/{tenant}/{owner}/{Report_Name}?format=json` (or
 * `format=csv`). The JSON is `{ "Report_Entry": [ { <alias>: "...", ... } ] }`: one object per row,
 * keyed by each column's XML alias (`Employee_ID`, `Primary_Work_Email`; an alias may also be
 * camelCase, `primaryWorkEmail`, and calculated fields are often named `CF_...`). Empty cells come
 * as `null`; instance fields (`Worker`, `Supervisory_Organization`, `Location`) as their display
 * text; booleans (`Active_Status`) as "1"/"0"; dates may carry Workday's time zone suffix
 * (`2026-10-31-07:00`). The CSV form heads each column with the field's name ("Employee ID").
 *
 * Field names compare ignoring case, spaces, `_` and `-`, so `Legal_Name_-_First_Name`,
 * `legalNameFirstName` and a "Legal Name - First Name" column are one entry.
 *
 * Aliases are chosen per report, so every entry below is the alias Workday proposes for a
 * delivered field; a report that renamed a column needs `roster.mapping` for it.
 */
export const workdayPreset: RosterPreset = {
  name: "workday",
  title: "Workday (custom report, RaaS JSON or CSV)",
  fields: {
    // Workday has no delivered LinkedIn field: it is a custom or calculated field, named by the
    // tenant. These are the usual spellings; point `mapping.profileUrl` at any other.
    profileUrl: ["LinkedIn_Profile_URL", "LinkedIn_URL", "LinkedIn_Profile", "LinkedIn"],
    // Employees have an Employee ID, contingent workers a Contingent Worker ID.
    employeeId: ["Employee_ID", "Contingent_Worker_ID", "Worker_ID"],
    // `Name` is the worker's name as the report shows it; `Worker` is the worker instance, shown by
    // its descriptor (also the name).
    name: ["Name", "Worker", "Legal_Name", "Preferred_Name"],
    firstName: ["First_Name", "Legal_Name_-_First_Name", "Preferred_Name_-_First_Name"],
    lastName: ["Last_Name", "Legal_Name_-_Last_Name", "Preferred_Name_-_Last_Name"],
    email: ["Primary_Work_Email", "Email_-_Primary_Work", "Work_Email"],
    department: ["Supervisory_Organization", "Cost_Center"],
    title: ["Business_Title", "Job_Title", "Job_Profile"],
    location: ["Location"],
    // The record status: "Active Status" is a boolean, "1" active and "0" not (a terminated worker).
    status: ["Active_Status", "Worker_Status"],
    // Employee Type first (Regular, Temporary, Fixed Term, Intern, ... as the tenant configured
    // them): Worker Type says only Employee or Contingent Worker, and an intern is an Employee.
    // A contingent worker has no Employee Type, so Worker Type is read for them.
    employmentStatus: ["Employee_Type", "Worker_Type"],
    terminationDate: ["Termination_Date"],
  },
  ignore: [
    // Contractor, Consultant, Vendor...: the kind of contingent worker, whose Worker Type
    // ("Contingent Worker") is read above and already puts them out of scope.
    "Contingent_Worker_Type",
  ],
  values: {
    // Active Status as RaaS writes a boolean.
    "1": "active",
    "0": "inactive",
    // Worker Type.
    Employee: "employed",
    "Contingent Worker": "contractor",
    // The usual employee type of a permanent employee. Other types (Temporary, Fixed Term,
    // Seasonal...) are left as they are: out of scope unless `roster.include.statuses` lists them.
    Regular: "employed",
  },
  recognise: [
    // Only Workday RaaS puts its rows under `Report_Entry`.
    { recordsAt: ["Report_Entry"] },
    { recordsAt: ["Report_Entry"], keys: ["Employee_ID"] },
    // CSV: Workday's field names.
    { headers: ["Employee ID", "Supervisory Organization"] },
    { headers: ["Employee ID", "Active Status"] },
    { headers: ["Worker", "Active Status"] },
    { headers: ["Employee ID", "Worker Type"] },
  ],
};
