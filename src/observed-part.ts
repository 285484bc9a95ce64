import type { Logger } from "./logger.js";

/**
 * What a part of the daemon is given to tell what it did: its logger, the events its observers
 * (metrics, readiness) subscribe to, and a clock tests can set (`T` is the part's unit of time).
 */
export interface ObservedPart<E, T> {
  readonly logger: Logger;
  readonly now?: () => T;
  /** Where the part tells what happened; absent: nobody listens. */
  readonly events?: E | undefined;
}
