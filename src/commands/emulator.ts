import { once } from "node:events";
import type { SeedName } from "@retention-sync/emulator";
import { EXIT_OK, type ExitCode, UsageError } from "../errors.js";
import { createLogger } from "../logger.js";
import { type CommandIO, parseCommandFlags, writeLine } from "./command-io.js";
import { loadEmulatorPackage } from "./load-emulator-package.js";

const USAGE = `Usage: retention-sync emulator [--port N] [--host H] [--write-key K] [--read-key K] [--rate-limit N] [--seed demo|empty]
                               [--allow-loopback-webhooks] [--import-delay-ms N] [--signal-interval-ms N]
                               [--api-seats-per-day N] [--rows-per-day N]
Runs the local emulator of the Retention Early-Warning Service API v1 until SIGINT/SIGTERM.`;

function intFlag(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`emulator: --${name} must be an integer >= ${min} (got "${value}").\n${USAGE}`);
  return Number(value);
}

/** `retention-sync emulator`: the emulator as a standalone server that prints its URL and keys. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { values } = parseCommandFlags("emulator", io, {
    port: { type: "string" },
    host: { type: "string" },
    "write-key": { type: "string" },
    "read-key": { type: "string" },
    "rate-limit": { type: "string" },
    seed: { type: "string" },
    "allow-loopback-webhooks": { type: "boolean" },
    "import-delay-ms": { type: "string" },
    "signal-interval-ms": { type: "string" },
    "api-seats-per-day": { type: "string" },
    "rows-per-day": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    writeLine(io.stdout, USAGE);
    return EXIT_OK;
  }
  const { SEED_NAMES, startEmulator } = await loadEmulatorPackage("emulator");
  const seed = values.seed ?? "demo";
  if (!(SEED_NAMES as readonly string[]).includes(seed))
    throw new UsageError(`emulator: --seed must be one of ${SEED_NAMES.join(", ")} (got "${seed}").`);
  for (const k of ["write-key", "read-key"] as const) {
    const v = values[k];
    if (v !== undefined && v.length < 6) throw new UsageError(`emulator: --${k} must be at least 6 characters.`);
  }
  const port = intFlag("port", values.port, 0);
  const rate = intFlag("rate-limit", values["rate-limit"], 1);
  const importDelay = intFlag("import-delay-ms", values["import-delay-ms"], 0);
  const signalInterval = intFlag("signal-interval-ms", values["signal-interval-ms"], 0);
  const apiSeats = intFlag("api-seats-per-day", values["api-seats-per-day"], 0);
  const rows = intFlag("rows-per-day", values["rows-per-day"], 0);
  const logger = createLogger({
    level: io.env.LOG_LEVEL ?? "info",
    destination: { write: (line: string) => io.stderr.write(line) },
  });
  const handle = await startEmulator({
    seed: seed as SeedName,
    logger,
    ...(port !== undefined ? { port } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(rate !== undefined ? { rateLimitPerMinute: rate } : {}),
    ...(values["write-key"] !== undefined ? { writeKey: values["write-key"] } : {}),
    ...(values["read-key"] !== undefined ? { readKey: values["read-key"] } : {}),
    ...(values["allow-loopback-webhooks"] ? { allowLoopbackWebhooks: true } : {}),
    ...(importDelay !== undefined ? { importDelayMs: importDelay } : {}),
    ...(signalInterval !== undefined ? { signalIntervalMs: signalInterval } : {}),
    ...(apiSeats !== undefined ? { apiSeatsPerDay: apiSeats } : {}),
    ...(rows !== undefined ? { rowsPerDay: rows } : {}),
  });
  writeLine(io.stdout, `Retention API v1 emulator (seed ${seed}) listening`);
  writeLine(io.stdout, `  RETENTION_API_URL=${handle.baseUrl}`);
  writeLine(io.stdout, `  write key (read+write): ${handle.writeKey}`);
  writeLine(io.stdout, `  read-only key:          ${handle.readKey}`);
  writeLine(io.stdout, `  organization id:        ${handle.organizationId}`);
  writeLine(io.stdout, `  control API:            ${handle.url}/_emulator/  OpenAPI: ${handle.url}/openapi.json`);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  io.signal?.addEventListener("abort", onSignal, { once: true });
  if (!io.signal?.aborted) await once(stop.signal, "abort");
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  await handle.close();
  writeLine(io.stdout, "emulator stopped");
  return EXIT_OK;
}
