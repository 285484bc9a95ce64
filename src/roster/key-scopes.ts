import type { Me } from "../api/spec-records.js";

/**
 * Scopes first: reconcile asks `GET /me` whether the key may write before it plans a write, so a
 * read-only key is a configuration error named with its fix (`ReadOnlyKeyError`, exit code 2), not
 * a 403 on the first write half-way through a run.
 */

/** Whether the key may write (spec 5.4: scopes are `read`, or `read` plus `write`). */
export function canWrite(me: Pick<Me, "scopes">): boolean {
  return me.scopes.includes("write");
}
