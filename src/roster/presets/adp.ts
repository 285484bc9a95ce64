import { LINKEDIN_LABELS } from "./linkedin-names.js";
import type { RosterPreset } from "./preset.js";

// ADP Workforce Now, Workers API v2: `GET /hr/v2/workers` answers `{"workers": [...]}` (found on its
// own); the worker.read event answers `{"events": [{"data": {"output": {"workers": [...]}}}]}`, which
// needs `roster.records: events.*.data.output.workers`. Names, nesting and status values follow ADP's
// published sample payloads (github.com/adpllc/marketplace-sample-payloads, wfn/hr/workers-v2 and
// wfn/hr/Worker-read) and the API's own meta response (`GET /hr/v2/workers/meta`).

// The primary work assignment; a worker may hold several and the first is not always the primary.
const PRIMARY = "workAssignments[primaryIndicator=true]";
const FIRST = "workAssignments.0";

// WFN has no LinkedIn field: it is a custom string field, on the worker (`customFieldGroup`) or on
// the person (`person.customFieldGroup`); `nameCode.codeValue` carries the field's name.
const LINKEDIN_NAMES = LINKEDIN_LABELS;
const linkedin = LINKEDIN_NAMES.flatMap((name) => [
  `person.customFieldGroup.stringFields[nameCode.codeValue=${name}].stringValue`,
  `customFieldGroup.stringFields[nameCode.codeValue=${name}].stringValue`,
]);

export const adpPreset: RosterPreset = {
  name: "adp",
  title: "ADP Workforce Now (Workers API v2)",
  fields: {
    profileUrl: linkedin,
    // workerID.idValue is the Associate ID shown in WFN; associateOID is the API's own key.
    employeeId: ["workerID.idValue", "associateOID"],
    name: ["person.legalName.formattedName"],
    firstName: ["person.legalName.givenName"],
    lastName: ["person.legalName.familyName1"],
    email: [
      "businessCommunication.emails[nameCode.codeValue=Work E-mail].emailUri",
      "businessCommunication.emails.0.emailUri",
    ],
    // The home department is the organizational unit typed "Department".
    department: [
      `${PRIMARY}.homeOrganizationalUnits[typeCode.codeValue=Department].nameCode.shortName`,
      `${FIRST}.homeOrganizationalUnits[typeCode.codeValue=Department].nameCode.shortName`,
    ],
    title: [`${PRIMARY}.jobTitle`, `${FIRST}.jobTitle`],
    location: [`${PRIMARY}.homeWorkLocation.nameCode.shortName`, `${FIRST}.homeWorkLocation.nameCode.shortName`],
    // workerStatus is the worker as a whole: Active, Inactive (ADP's samples show it for a worker
    // whose position is on Leave) or Terminated.
    status: ["workerStatus.statusCode.codeValue"],
    // The worker type is company-defined (codeValue F/P/1099...), so its label is read.
    employmentStatus: [`${PRIMARY}.workerTypeCode.shortName`, `${FIRST}.workerTypeCode.shortName`],
    // Removed again on rehire (ADP's rehired samples carry only originalHireDate and rehireDate).
    terminationDate: ["workerDates.terminationDate"],
  },
  values: {
    // WFN's position statuses are Active, Leave and Terminated; a worker on leave is "Inactive".
    Inactive: "on leave",
  },
  // Keys whose name looks like a status or an end date; an ignored key covers the keys inside it.
  ignore: [
    // Per position (codes A, L, T); workerStatus (read) is the worker's own. In ADP's samples the
    // two agree (A/Active, L/Inactive, T/Terminated).
    "workAssignments.*.assignmentStatus",
    // A position's own end; workerDates.terminationDate (read) is the worker's.
    "workAssignments.*.terminationDate",
    // Whether the last payroll paid the position ("Paid", "Not Paid").
    "workAssignments.*.payrollProcessingStatusCode",
    // The status of a government ID (an SSN "Applied For"), not of the worker.
    "person.governmentIDs.*.statusCode",
  ],
  recognise: [
    // associateOID is ADP's worker key; no other vendor's export names it.
    { keys: ["associateOID", "workerID.idValue", "person.legalName"] },
    // A `$select` answer may leave associateOID out.
    { keys: ["workerID.idValue", "person.legalName.formattedName", "workerStatus.statusCode.codeValue"] },
  ],
};
