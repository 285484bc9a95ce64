import { UsageError } from "../errors.js";

/** The workspace package (packages/emulator) holding the emulator, the fake Slack and the sample roster. */
export const EMULATOR_PACKAGE = "@retention-sync/emulator";

export type EmulatorPackage = typeof import("@retention-sync/emulator");

/** True when `error` says the emulator package (or its build) cannot be found. */
export function isEmulatorMissing(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return (
    error.message.includes(EMULATOR_PACKAGE) || /[/\\]emulator[/\\]dist[/\\]/.test(error.message.replaceAll("'", ""))
  );
}

/** What the `emulator` and `demo` commands say where the package is not installed (the production image). */
export function emulatorMissingMessage(command: string): string {
  return [
    `${command}: the emulator is a development tool and is not installed here (${EMULATOR_PACKAGE} is left out of`,
    "the production image, which holds the daemon only). Run it from a source checkout of retention-sync:",
    "`npm ci && npm run demo` for the demo, `npm ci && npm run build && node dist/cli.js emulator` for the emulator.",
  ].join("\n");
}

/**
 * Loads the emulator package when the `emulator` or `demo` command runs, and only then: nothing else
 * in the daemon imports it, so the daemon works without it. Its absence is a usage error (exit 2).
 */
export async function loadEmulatorPackage(
  command: string,
  load: () => Promise<EmulatorPackage> = () => import("@retention-sync/emulator"),
): Promise<EmulatorPackage> {
  try {
    return await load();
  } catch (error) {
    if (isEmulatorMissing(error)) throw new UsageError(emulatorMissingMessage(command), { cause: error });
    throw error;
  }
}
