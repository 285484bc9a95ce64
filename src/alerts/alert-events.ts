import type { RefusalReason } from "../refusal-tally.js";
import { TypedEmitter } from "../typed-emitter.js";
import type { PollReport } from "./poll-report.js";

/**
 * What the alert path tells its observers (metrics), by name. The doors and the commit emit; they
 * know nothing of Prometheus, and a test can watch the same events.
 */
export interface AlertEventMap {
  /** Messages a hand-over (either door) put in the outbox that were new to it. */
  readonly queued: { readonly count: number };
  /** A poll pass of the daemon ended (failed ones included); `at`: when it ended. */
  readonly "poll-pass": { readonly report: PollReport; readonly at: Date };
  /** The webhook receiver refused a request (each one; the log shows a count per minute). */
  readonly "webhook-refused": { readonly reason: RefusalReason };
}

export class AlertEvents extends TypedEmitter<AlertEventMap> {}
