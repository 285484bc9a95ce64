/**
 * The one error hierarchy of retention-sync, read from this index: every class extends
 * `RetentionSyncError` and knows the process exit code it maps to (`exitCodeOf`,
 * docs/operations.md). Callers branch on the class or on `code`, never on message text. The files
 * under `errors/` only keep each file short: the API's errors, the roster's, the runtime's, and
 * `errorDetail`, any error as one line for a message.
 * Module-internal signals (a CSV or JSON syntax error, a field path, a body over its cap) stay in
 * their module and are converted to these classes at the module's edge, so a command only ever
 * sees these.
 */

export * from "./errors/api-errors.js";
export * from "./errors/base.js";
export * from "./errors/error-detail.js";
export * from "./errors/roster-errors.js";
export * from "./errors/runtime-errors.js";
