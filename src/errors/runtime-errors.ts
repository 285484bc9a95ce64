import { EXIT_RUNTIME, RetentionSyncError } from "./base.js";

/** The runtime's errors: the state store, leadership, webhooks, Slack buttons, the local Slack. */

/** The state store failed (disk full, locked or corrupt database). */
export class StoreError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/** Another instance holds the lock on the same state. */
export class InstanceLockedError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/**
 * A write refused because this replica no longer leads: a newer leader took over (its epoch, the
 * fencing token, is newer) or this replica stepped down. The write did not happen; the replica
 * stops its jobs and becomes a standby.
 */
export class FencedOutError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  /** The epoch this replica wrote with (undefined: it was not leading). */
  readonly epoch: number | undefined;
  /** The epoch the store holds (undefined: not known, the replica refused the write itself). */
  readonly current: number | undefined;
  constructor(epoch: number | undefined, current: number | undefined) {
    super(
      epoch === undefined
        ? "write refused: this replica is not the leader"
        : `write refused: this replica led with epoch ${epoch}, a newer leader holds epoch ${current ?? "?"}`,
    );
    this.epoch = epoch;
    this.current = current;
  }
}

/** Signature missing, malformed, wrong or outside the tolerance window. */
export class WebhookSignatureError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
  readonly reason: "missing" | "malformed" | "mismatch" | "stale";
  constructor(reason: "missing" | "malformed" | "mismatch" | "stale", message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A Slack button press that cannot be applied as it stands (the alert lacks what the action needs). */
export class SlackActionError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}

/**
 * A press asked of the local Slack of a running demo or sandbox that it cannot make (no such alert
 * shown, no daemon connected to press through, the running one does not answer).
 */
export class LocalPressError extends RetentionSyncError {
  readonly exitCode = EXIT_RUNTIME;
}
