import { TypedEmitter } from "../typed-emitter.js";
import type { SocketState } from "./socket-transport.js";

/** How a press ended, for metrics (`retention_sync_slack_actions_total{kind,outcome}`). */
export type PressOutcome = "applied" | "refused" | "failed" | "ignored" | "duplicate";

/**
 * What the buttons' machinery tells its observers (metrics, readiness), by name. The actions and
 * the Socket Mode connection emit; they know nothing of Prometheus or /readyz, and a test can
 * watch the same events.
 */
export interface InteractiveEventMap {
  /** A press ended (`kind` none: a payload that is not ours). */
  readonly press: { readonly kind: string; readonly outcome: PressOutcome };
  /** The Socket Mode connection changed state. */
  readonly "socket-state": { readonly state: SocketState };
}

export class InteractiveEvents extends TypedEmitter<InteractiveEventMap> {}
