/**
 * The `code` values of the Error body (spec 2.1 and 7). A copy of the daemon's list (src/errors/api-errors.ts),
 * so this package depends on nothing of the daemon; test/api/emulator-spec-copies.test.ts keeps the
 * two equal.
 */
export const SERVICE_ERROR_CODES = [
  "INVALID_BODY",
  "SUBSCRIPTION_INACTIVE",
  "TRIAL_LIMIT_REACHED",
  "SEAT_CHARGE_FAILED",
  "INSUFFICIENT_SCOPE",
  "EMPLOYEE_EXISTS",
  "COMPETITOR_IDENTITY_MISMATCH",
  "SEAT_QUOTA_EXCEEDED",
  "ROW_QUOTA_EXCEEDED",
  "SEAT_RESERVATION_BUSY",
] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];
