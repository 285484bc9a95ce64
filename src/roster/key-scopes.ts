import type { Me } from "../api/spec-records.js";
import { ConfigError } from "../errors.js";

/**
 * Scopes first: reconcile asks `GET /me` whether the key may write before it plans a write, so a
 * read-only key is a configuration error named with its fix (exit code 2), not a 403 on the first
 * write half-way through a run.
 */

export const READ_ONLY_FIX =
  "create a read+write key in the dashboard (Settings, Developers) and set RETENTION_API_KEY to it " +
  "(a key's scopes are fixed when it is created), or turn reconciliation off (unset HRIS_ROSTER_FILE or set roster.enabled: false)";

/** Whether the key may write (spec 5.4: scopes are `read`, or `read` plus `write`). */
export function canWrite(me: Pick<Me, "scopes">): boolean {
  return me.scopes.includes("write");
}

/** A read-only key where reconciliation needs to write. */
export class ReadOnlyKeyError extends ConfigError {
  constructor(scopes: readonly string[]) {
    super("API key", [
      {
        path: "api.key (RETENTION_API_KEY)",
        message: `the key is read-only (scopes: ${scopes.join(", ") || "none"}) and reconciliation writes to the roster: ${READ_ONLY_FIX}`,
      },
    ]);
  }
}
