/**
 * Polls `probe` every 25 ms until it returns a value (not `undefined`), for a test that waits on a
 * server, a child or a daemon. The limit only ends a wait that would never end; no assertion rests
 * on how long it took.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
