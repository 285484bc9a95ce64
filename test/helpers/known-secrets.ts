/**
 * The secret values of the test world, for the suite-wide log audit (test/setup/log-audit.ts).
 *
 * Registered automatically: emulator startup keys and keys created through `EmulatorControl`
 * (test/helpers/start-emulator.ts), webhook signing secrets (harvested from the emulator's state
 * dump when a test emulator closes, or at the end of the file), the fake Slack's bot and app-level
 * tokens and signing secret (test/helpers/fake-slack.ts), the tiny service's keys
 * (test/cli/cli-harness.ts) and every value passed as `secrets` to `createLogger` (which covers the
 * API key, Slack token and webhook secrets of every config a runtime is opened with).
 * A test that makes up a secret some other way calls `registerSecret(value, "what it is")` once.
 * `SECRET_PATTERNS` is the safety net for values nobody registered.
 *
 * The registry lives on globalThis so that `vi.resetModules()` in a test cannot split it.
 */

export interface KnownSecret {
  /** Says what the secret is; printed in reports instead of the value. */
  readonly label: string;
  readonly value: string;
}

export interface SecretPattern {
  readonly label: string;
  /** Must not carry the `g` or `y` flag (used with `test` on many lines). */
  readonly regex: RegExp;
}

/** Shorter values are not secrets worth the name, and `createLogger` does not scrub them either. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Formats of generated secrets. The character classes exclude `.`, so hints such as
 * "(xoxb-...)" or "whsec_..." in help and error messages are not flagged.
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { label: "Slack token (pattern xox?-)", regex: /xox[abpr]-[A-Za-z0-9-]{10,}/ },
  { label: "Slack app-level token (pattern xapp-)", regex: /xapp-\d-[A-Za-z0-9-]{10,}/ },
  { label: "webhook secret (pattern whsec_)", regex: /whsec_[A-Za-z0-9_]{8,}/ },
  { label: "emulator API key (pattern rsk_emu_)", regex: /rsk_emu_(?:r[wo]_)?[0-9a-f]{16,}/ },
];

const REGISTRY = Symbol.for("retention-sync.test.known-secrets");

function registry(): Map<string, string> {
  const holder = globalThis as unknown as Record<symbol, Map<string, string> | undefined>;
  let map = holder[REGISTRY];
  if (!map) {
    map = new Map();
    holder[REGISTRY] = map;
  }
  return map;
}

/** Adds a secret value (ignored when shorter than MIN_SECRET_LENGTH); the first label wins. */
export function registerSecret(value: string | undefined | null, label: string): void {
  if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH) return;
  const map = registry();
  if (!map.has(value)) map.set(value, label);
}

export function knownSecrets(): KnownSecret[] {
  return [...registry()].map(([value, label]) => ({ value, label }));
}

/** Called by the audit at the start of each test file. */
export function forgetSecrets(): void {
  registry().clear();
}
