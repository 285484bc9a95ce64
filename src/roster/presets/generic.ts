import type { RosterPreset } from "./preset.js";

/**
 * The default header names (networkUrl, name, department...) and their common spellings, for an
 * export no vendor preset recognises. Names compare ignoring case, spaces, `_` and `-`.
 */
export const genericPreset: RosterPreset = {
  name: "generic",
  title: "generic column names",
  fields: {
    profileUrl: ["networkUrl", "profileUrl", "linkedin", "linkedinUrl", "linkedinProfile", "linkedinProfileUrl"],
    employeeId: ["employeeId", "id", "workerId", "employeeNumber"],
    name: ["name", "fullName", "displayName"],
    firstName: ["firstName"],
    lastName: ["lastName"],
    email: ["email", "workEmail"],
    department: ["department"],
    title: ["title", "jobTitle"],
    location: ["location"],
    managerEmail: ["managerEmail", "supervisorEmail"],
    status: ["status", "active", "isActive", "activeStatus", "workerStatus", "employeeStatus"],
    employmentStatus: ["employmentStatus", "employmentType", "employeeType", "workerType"],
    left: ["terminated", "isTerminated"],
    terminationDate: ["terminationDate", "separationDate", "endDate", "exitDate", "lastDayOfWork"],
  },
  recognise: [],
};
