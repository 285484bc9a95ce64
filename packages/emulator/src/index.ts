/**
 * @retention-sync/emulator: the local emulator of the Retention Early-Warning Service API v1
 * (with its control API), the fake Slack Web API the demo uses as its Slack sink, and the demo's
 * sample HRIS roster. A development tool: the daemon loads it lazily, and its production image
 * does not contain it.
 */
export { CHANGE_TYPES, type ChangeType } from "./change-types.js";
export type { Emulator, RequestLogEntry } from "./emulator.js";
export * from "./fake-slack-server.js";
export { type EmulatorLogger, silentLogger } from "./logger.js";
export { Rng } from "./rng.js";
export { buildSampleRoster, type RosterPerson, type SampleRoster } from "./sample-roster.js";
export { SEED_NAMES, type SeedName } from "./seed.js";
export { SERVICE_ERROR_CODES, type ServiceErrorCode } from "./service-error-codes.js";
export { type EmulatorHandle, type EmulatorOptions, startEmulator } from "./start-emulator.js";
