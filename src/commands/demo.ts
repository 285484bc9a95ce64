import { EXIT_RUNTIME, type ExitCode } from "../errors.js";
import type { CommandIO } from "./command-io.js";

/** Placeholder until the owner of `demo` lands it. */
export async function run(io: CommandIO): Promise<ExitCode> {
  io.stderr.write("retention-sync demo: not implemented yet\n");
  return EXIT_RUNTIME;
}
