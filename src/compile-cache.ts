import * as nodeModule from "node:module";

/**
 * Turns on Node's on-disk cache of compiled modules (Node 22.1 and later; the image runs Node 24),
 * so a restart compiles none of the several hundred modules the daemon loads again: the start is
 * shorter. The folder is NODE_COMPILE_CACHE when set (the image points it into the state volume,
 * so it outlives the container), else one in the temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns
 * it off. On Node 20 the function does not exist and nothing happens. A cache that cannot be
 * written (read-only file system) only costs the start time it would have saved: Node reports it
 * in the returned status and does not throw, and anything else thrown is ignored for that reason.
 */
export function enableCompileCache(): void {
  const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
  if (typeof enable !== "function") return;
  try {
    enable();
  } catch {
    // An optimisation only: the daemon runs the same without it.
  }
}
