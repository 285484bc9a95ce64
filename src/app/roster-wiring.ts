// What the daemon needs of the roster flow, in one module that `configured-daemon.ts` imports
// only when reconciliation is configured: a daemon that only relays alerts never loads it.
export { READ_ONLY_FIX } from "../errors.js";
export { canWrite } from "../roster/key-scopes.js";
export { postReconcileReport } from "../roster/post-report.js";
export { hasInterruptedReconcile } from "../roster/reconcile-journal.js";
export { applyRun, planRun } from "../roster/reconcile-once.js";
export { recordFailedRun, recordRun } from "../roster/run-record.js";
export { oneAtATime, reconcileApprovals } from "./reconcile-approvals.js";
export { probeRosterSource } from "./roster-source-probe.js";
