/**
 * What the HRIS roster file says about a person, found by profile URL: the lookup's answer and,
 * its values trimmed, the HR data an alert shows.
 */
export interface HrisDetails {
  readonly employeeId?: string | undefined;
  readonly title?: string | undefined;
  readonly department?: string | undefined;
  readonly managerEmail?: string | undefined;
  /** The manager's name, when the manager's email is in the roster file too. */
  readonly managerName?: string | undefined;
}
