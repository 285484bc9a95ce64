import { TypedEmitter } from "../typed-emitter.js";

/** An event that carries nothing but its name. */
export type NoPayload = Readonly<Record<string, never>>;

/**
 * What the daemon tells its observers (metrics, readiness), by name. The daemon emits; it knows
 * nothing of Prometheus or /readyz, and a test can watch the same events.
 */
export interface DaemonEventMap {
  /** Before anything listens: a replica starts as a standby whose lock was not tried yet. */
  readonly starting: { readonly replicas: boolean };
  /** An attempt at the leader lock failed or its session went silent: nobody may be leading. */
  readonly "lock-unknown": { readonly problem: string };
  /** An attempt at the leader lock was answered (won or held by another replica). */
  readonly "lock-answered": NoPayload;
  readonly "store-failed": { readonly error: unknown };
  readonly "store-ok": NoPayload;
  /** The expiry sweep ran; the state's size after it. */
  readonly swept: { readonly fileBytes: number };
  /** A listener is being started (not ready until `listening`), then accepts connections. */
  readonly "listener-starting": { readonly name: string };
  readonly listening: { readonly name: string };
  /** A term began: the fence holds its epoch and the jobs start. */
  readonly leading: { readonly epoch: number | undefined };
  /** The term was lost or refused: no fenced write from here on; its jobs are being stopped. */
  readonly "standing-down": { readonly epoch: number | undefined; readonly reason: string };
  /** Every job of the term ended (or the grace ran out: `clean` false) and the lead was given back. */
  readonly "term-ended": { readonly epoch: number | undefined; readonly clean: boolean };
  readonly "job-finished": { readonly job: string };
  readonly "job-failed": { readonly job: string; readonly error: unknown };
  readonly stopped: { readonly clean: boolean };
}

export class DaemonEvents extends TypedEmitter<DaemonEventMap> {}
