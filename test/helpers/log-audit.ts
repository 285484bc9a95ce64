/**
 * Suite-wide log audit: every line any logger writes during a test file (at trace, whatever the
 * logger's own level, silent loggers included) lands here, tagged with the test that produced it,
 * and is checked at the end of the file against every known secret (test/helpers/known-secrets.ts)
 * and the secret patterns. test/setup/log-audit.ts hooks the loggers in and fails the file on a leak.
 *
 * Tests that run a real child process feed its output in with one call:
 *
 *   auditChildOutput("run daemon", child);          // right after spawn (stdout/stderr piped)
 *   auditLogText("crash child stderr", text);       // or any captured text, once complete
 *
 * `origin` is a short free text naming the source; the current test's name is added to it.
 * Both only record: the check happens when the file ends, against the secrets known by then.
 */
import type { ChildProcess } from "node:child_process";
import { relative } from "node:path";
import { expect } from "vitest";
import { type KnownSecret, SECRET_PATTERNS, type SecretPattern } from "./known-secrets.js";

export interface AuditLine {
  readonly origin: string;
  readonly line: string;
}

export interface Leak {
  /** The secret's label (registered secret) or the pattern's label; never the value. */
  readonly label: string;
  readonly origin: string;
  /** The offending line, truncated, with every secret replaced by its label. */
  readonly excerpt: string;
}

interface AuditStore {
  lines: string[];
  origins: string[];
  /** Child outputs, read when the file ends so that output arriving after `exit` is included. */
  sources: Array<{ origin: string; text: () => string }>;
  /** Run before the scan (e.g. harvesting webhook secrets of emulators still open). */
  finishers: Set<() => Promise<void>>;
  loggers: number;
}

const STORE = Symbol.for("retention-sync.test.log-audit");

function store(): AuditStore {
  const holder = globalThis as unknown as Record<symbol, AuditStore | undefined>;
  let current = holder[STORE];
  if (!current) {
    current = { lines: [], origins: [], sources: [], finishers: new Set(), loggers: 0 };
    holder[STORE] = current;
  }
  return current;
}

/** Empties the audit; the setup calls it before each test file. */
export function resetAudit(): void {
  const s = store();
  s.lines = [];
  s.origins = [];
  s.sources = [];
  s.finishers.clear();
  s.loggers = 0;
}

let lastKey: string | undefined;
let lastOrigin = "";

/** "test/x.test.ts > describe > test", or just the file outside a test. */
export function currentOrigin(): string {
  const state = expect.getState();
  const key = `${state.testPath ?? ""}\0${state.currentTestName ?? ""}`;
  if (key !== lastKey) {
    lastKey = key;
    const file = state.testPath ? relative(process.cwd(), state.testPath) : "(no test file)";
    lastOrigin = state.currentTestName ? `${file} > ${state.currentTestName}` : file;
  }
  return lastOrigin;
}

/** Records one chunk written by an audited logger (normally one JSON line). */
export function recordLogChunk(chunk: string): void {
  const s = store();
  const origin = currentOrigin();
  for (const line of chunk.split("\n")) {
    if (line.length === 0) continue;
    s.lines.push(line);
    s.origins.push(origin);
  }
}

export function countLogger(): void {
  store().loggers += 1;
}

function pushText(taggedOrigin: string, text: string): void {
  const s = store();
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    s.lines.push(line);
    s.origins.push(taggedOrigin);
  }
}

/** Feeds captured text (a child process's output, a log file) to the audit, line by line. */
export function auditLogText(origin: string, text: string): void {
  pushText(`${currentOrigin()} [${origin}]`, text);
}

/**
 * Audits a child's stdout and stderr (spawn it with them piped): the output is collected as it
 * arrives and read when the file ends. `text()` returns what was collected so far (for messages).
 */
export function auditChildOutput(origin: string, child: ChildProcess): { text(): string } {
  if (!child.stdout && !child.stderr) throw new Error("auditChildOutput: spawn the child with stdout/stderr piped");
  const tagged = `${currentOrigin()} [${origin}]`;
  let collected = "";
  const collect = (chunk: Buffer | string) => {
    collected += String(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const text = () => collected;
  store().sources.push({ origin: tagged, text });
  return { text };
}

/** Registers work to do before the end-of-file scan; returns its removal. */
export function beforeAuditScan(work: () => Promise<void>): () => void {
  const s = store();
  s.finishers.add(work);
  return () => s.finishers.delete(work);
}

/** Every audited line so far (child outputs only once the file ends). */
export function auditedLines(): AuditLine[] {
  const s = store();
  return s.lines.map((line, i) => ({ line, origin: s.origins[i] ?? "" }));
}

/** Runs the finishers and reads the child outputs; the setup calls it once, at the end of the file. */
export async function collectAudit(): Promise<{ lines: AuditLine[]; loggers: number }> {
  const s = store();
  for (const work of [...s.finishers]) await work().catch(() => undefined);
  for (const source of s.sources) pushText(source.origin, source.text());
  s.sources = [];
  return { lines: auditedLines(), loggers: s.loggers };
}

const EXCERPT_CHARS = 240;

function redact(line: string, secrets: readonly KnownSecret[], patterns: readonly SecretPattern[]): string {
  let out = line;
  for (const s of secrets) out = out.split(s.value).join(`‹${s.label}›`);
  for (const p of patterns) out = out.replace(new RegExp(p.regex.source, "g"), `‹${p.label}›`);
  return out;
}

function excerpt(redacted: string): string {
  const at = Math.max(0, redacted.indexOf("‹") - EXCERPT_CHARS / 3);
  const cut = redacted.slice(at, at + EXCERPT_CHARS);
  return `${at > 0 ? "…" : ""}${cut}${at + EXCERPT_CHARS < redacted.length ? "…" : ""}`;
}

/**
 * The leaks in `lines`: every line holding a known secret, or (once known secrets are taken out)
 * matching a secret pattern. Pure; the report never contains a secret value.
 */
export function findLeaks(
  lines: readonly AuditLine[],
  secrets: readonly KnownSecret[],
  patterns: readonly SecretPattern[] = SECRET_PATTERNS,
): Leak[] {
  // One pass over the whole text first: nearly always nothing matches and the scan ends here.
  const whole = lines.map((l) => l.line).join("\n");
  const present = secrets.filter((s) => whole.includes(s.value)).sort((a, b) => b.value.length - a.value.length);
  const matching = patterns.filter((p) => p.regex.test(whole));
  if (present.length === 0 && matching.length === 0) return [];
  const leaks: Leak[] = [];
  for (const { line, origin } of lines) {
    const labels = new Set<string>();
    let rest = line;
    for (const s of present) {
      if (!rest.includes(s.value)) continue;
      labels.add(s.label);
      rest = rest.split(s.value).join("");
    }
    for (const p of matching) if (p.regex.test(rest)) labels.add(p.label);
    if (labels.size === 0) continue;
    const shown = excerpt(redact(line, present, matching));
    for (const label of labels) leaks.push({ label, origin, excerpt: shown });
  }
  return leaks;
}

/** The failure message of a leaking file: label, origin and redacted excerpt of each leak. */
export function formatLeakReport(file: string, leaks: readonly Leak[], shown = 20): string {
  const listed = leaks.slice(0, shown).map((l) => `  - ${l.label}\n    from ${l.origin}\n    line ${l.excerpt}`);
  const more = leaks.length > shown ? [`  … and ${leaks.length - shown} more`] : [];
  return [`log audit: ${leaks.length} secret leak(s) in log lines of ${file}:`, ...listed, ...more].join("\n");
}

const LEVEL_NAMES: Readonly<Record<string, string>> = {
  "10": "trace",
  "20": "debug",
  "30": "info",
  "40": "warn",
  "50": "error",
  "60": "fatal",
};

/** pino writes `{"level":NN,` first; anything else (child output that is not JSON) is "text". */
export function levelName(line: string): string {
  if (!line.startsWith('{"level":')) return "text";
  return LEVEL_NAMES[line.slice(9, 11)] ?? "text";
}
