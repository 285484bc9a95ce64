import type { ActionTarget } from "../../../src/interactive/button-value.js";

/** The person a button in the unit tests acts on. */
export const sampleTarget: ActionTarget = {
  lens: "retention",
  organizationId: 1,
  employeeId: 42,
  profileUrl: "https://www.linkedin.com/in/jane-doe",
  personRef: "1:42",
  changeKey: "chg:abc",
  name: "Jane Doe",
};
