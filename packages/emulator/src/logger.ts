/**
 * What the emulator logs with: the few methods it calls, in pino's shape, so that a pino logger
 * (the daemon's `createLogger`) can be passed as is and the package needs no logging library.
 */
export interface EmulatorLogger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The default: writes nothing. (The test suite's log audit replaces it with an audited logger.) */
export function silentLogger(): EmulatorLogger {
  const drop = (): void => undefined;
  return { debug: drop, info: drop, error: drop };
}
