import { EXIT_OK, EXIT_RUNTIME, EXIT_USAGE, type ExitCode } from "../errors.js";

/** How bad a failed check is: a setting the operator must change, or something unreachable right now. */
export type CheckSeverity = "config" | "runtime";

export interface CheckLine {
  readonly ok: boolean;
  readonly text: string;
  readonly details?: readonly string[];
  readonly severity?: CheckSeverity;
  /** How many problems the line lists (an invalid config lists each of its problems); 1 when absent. */
  readonly problems?: number;
}

/** Collects ✓/✗ lines as they happen (printed at once, so a slow check shows progress). */
export class CheckReport {
  private readonly lines: CheckLine[] = [];
  constructor(private readonly out: NodeJS.WritableStream) {}

  pass(text: string, details: readonly string[] = []): void {
    this.add({ ok: true, text, details });
  }

  /** A failed check; `problems` when the line lists several (each counted in the summary). */
  fail(severity: CheckSeverity, text: string, details: readonly string[] = [], problems = 1): void {
    this.add({ ok: false, text, details, severity, problems });
  }

  /** A neutral line (something switched off on purpose). */
  note(text: string): void {
    this.out.write(`- ${text}\n`);
  }

  private add(line: CheckLine): void {
    this.lines.push(line);
    this.out.write(`${line.ok ? "✓" : "✗"} ${line.text}\n`);
    for (const detail of line.details ?? []) this.out.write(`    ${detail}\n`);
  }

  get failures(): readonly CheckLine[] {
    return this.lines.filter((l) => !l.ok);
  }

  /** 0 when all passed; 2 when a setting must change (it also explains most runtime failures); else 1. */
  exitCode(): ExitCode {
    const failures = this.failures;
    if (failures.length === 0) return EXIT_OK;
    return failures.some((f) => f.severity === "config") ? EXIT_USAGE : EXIT_RUNTIME;
  }

  summary(): string {
    const n = this.failures.reduce((sum, line) => sum + (line.problems ?? 1), 0);
    return n === 0 ? "All checks passed." : `${n} problem${n === 1 ? "" : "s"} found.`;
  }
}
