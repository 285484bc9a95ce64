import { TypedEmitter } from "../typed-emitter.js";

/** Why Slack refuses a channel's posts, and what the operator does about it. */
export interface ChannelProblem {
  readonly code: string;
  readonly fix: string;
}

/**
 * What delivery tells its observers (metrics, readiness), by name. The sender emits; it knows
 * nothing of Prometheus or /readyz, and a test can watch the same events.
 */
export interface DeliveryEventMap {
  /**
   * Slack refuses posts to a channel until an operator acts (`problem`: Slack's code and the fix),
   * or, with `problem` undefined, a post to a channel that was refused went through again.
   */
  readonly "channel-problem": { readonly channel: string; readonly problem: ChannelProblem | undefined };
}

export class DeliveryEvents extends TypedEmitter<DeliveryEventMap> {}
