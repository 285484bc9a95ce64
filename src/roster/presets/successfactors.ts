import type { RosterPreset } from "./preset.js";

/**
 * SAP SuccessFactors OData v2, JSON format: `{ "d": { "results": [...], "__next": "..." } }`, each
 * entry with `__metadata` (`uri`, `type`), expanded navigations as `{ "results": [...] }` and dates
 * as `/Date(ms)/`. Two entities are read:
 * - `User` (User Management API): one flat entry per user with name, email, department, title,
 *   location and `status` (t active, f inactive, e/d onboarding or learning users); the entity SAP's
 *   notes show for listing active and inactive users (`$filter=status in 't','f'`). It has no
 *   termination date and no LinkedIn field: the customer keeps LinkedIn in one of custom01-custom15.
 * - `PerPerson` (Employee Central, "commonly used as the main entity when doing employee master
 *   extracts") expanded with personalInfoNav, emailNav, socialAccountNav and employmentNav (with
 *   jobInfoNav): the termination date is the employment's `endDate` ("Termination Date").
 * Property names: SAP API Business Hub metadata (PLTUserManagement, ECPersonalInformation,
 * ECEmploymentInformation); status codes: SAP KBA 2736579.
 */
export const successfactorsPreset: RosterPreset = {
  name: "successfactors",
  title: "SAP SuccessFactors (OData v2 User or PerPerson)",
  fields: {
    employeeId: ["userId", "personIdExternal"],
    name: ["defaultFullName", "displayName", "personalInfoNav.results.0.displayName"],
    firstName: ["firstName", "personalInfoNav.results.0.firstName"],
    lastName: ["lastName", "personalInfoNav.results.0.lastName"],
    email: ["email", "emailNav.results[isPrimary=true].emailAddress"],
    department: ["department", "employmentNav.results.0.jobInfoNav.results.0.department"],
    title: ["title", "jobTitle", "employmentNav.results.0.jobInfoNav.results.0.jobTitle"],
    location: ["location", "employmentNav.results.0.jobInfoNav.results.0.location"],
    // The User entity's manager navigation, read with $expand=manager.
    managerEmail: ["manager.email"],
    // User.status: a one-letter code (see values) or its text (active, inactive, active_external...).
    status: ["status"],
    // EmpEmployment.isContingentWorker: contingent workers (contractors) are out of scope.
    employmentStatus: ["employmentNav.results.0.isContingentWorker"],
    terminationDate: ["employmentNav.results.0.endDate"],
  },
  ignore: [
    // Effective-dated records end on 9999-12-31 until the next change: dates of the record, not of
    // the employment (PerPersonal, EmpJob).
    "personalInfoNav.results.*.endDate",
    "employmentNav.results.*.jobInfoNav.results.*.endDate",
    // Pay, benefit and stock end dates of an employment: its endDate above is the termination date.
    "employmentNav.results.*.payrollEndDate",
    "employmentNav.results.*.salaryEndDate",
    "employmentNav.results.*.benefitsEndDate",
    "employmentNav.results.*.StockEndDate",
  ],
  values: {
    // User.status codes (SAP KBA 2736579). Codes compare ignoring case, so T (active external 360
    // reviewers) reads as t: export with $filter=status in 't','f' to leave them out.
    t: "active",
    f: "inactive",
    // Active Learning and Onboarding users: not employees yet.
    e: "onboarding",
    d: "inactive",
    // isContingentWorker.
    true: "contractor",
    false: "employed",
  },
  recognise: [
    { recordsAt: ["d.results"], keys: ["__metadata.type", "userId", "status"] },
    { recordsAt: ["d.results"], keys: ["__metadata.type", "personIdExternal"] },
  ],
};
