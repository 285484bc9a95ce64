import { StoreError } from "../errors.js";

export function storeFailure(action: string, location: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new StoreError(
    `State store ${location}: ${action} failed: ${detail}. Check that the volume is writable, not full, and not used by another process.`,
    { cause: error },
  );
}

/**
 * Runs store operations one at a time on the one connection. A transaction holds it from BEGIN to
 * COMMIT, so no other write can slip into it (and be rolled back with it) and no read sees it half
 * done. Each operation is a few statements, so the wait is short.
 */
export class Gate {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** How a scope runs an operation: through the gate, or directly inside a transaction that holds it. */
export type Runner = <T>(action: string, work: () => Promise<T>) => Promise<T>;
