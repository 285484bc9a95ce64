import { problemKind, scrubHint } from "../scrub-text.js";
import { ConfigError, EXIT_PARTIAL, EXIT_RUNTIME, EXIT_USAGE, type ExitCode, RetentionSyncError } from "./base.js";

/** The roster flow's errors: the export, the HRIS source, the key's scopes, a saved plan. */

/**
 * The HRIS roster file cannot be used at all (unreadable, no header, missing required column).
 * The message may quote the file (a header, a first line): it is scrubbed (`scrubHint`), since the
 * file may not be an export at all but an env file with keys in it. `problem` is the kind of
 * problem alone, with nothing of the file, for /readyz.
 */
export class RosterFileError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  readonly file: string;
  /** `has no profile URL column`, `cannot be read`: the words before any detail or excerpt. */
  readonly problem: string;
  constructor(file: string, message: string, options?: { cause?: unknown }) {
    super(
      `Roster file ${file}: ${scrubHint(message)}`,
      options?.cause === undefined ? undefined : { cause: quietCause(options.cause) },
    );
    this.file = file;
    this.problem = problemKind(message);
  }
}

/**
 * The cause of a RosterFileError as the logs may show it (pino prints causes): a system error
 * (ENOENT, EACCES: a path, no content) as it is; any other, such as a JSON parser's error that
 * quotes the start of a line, with its quoted excerpts dropped and the rest scrubbed.
 */
function quietCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return scrubHint(String(cause)).replace(/"[^"\n]*"(\.\.\.)?/g, '"..."');
  if (typeof (cause as NodeJS.ErrnoException).syscall === "string") return cause;
  const quiet = new Error(scrubHint(cause.message).replace(/"[^"\n]*"(\.\.\.)?/g, '"..."'));
  quiet.name = cause.name;
  return quiet;
}

/**
 * Pulling the roster from the HRIS failed or was cut short (a 5xx, a cut body, a page that never
 * came): nothing is reconciled, nobody is archived, and the next schedule tries again.
 */
export class RosterPullError extends RetentionSyncError {
  readonly exitCode: ExitCode = EXIT_RUNTIME;
  /** The source (`https`, `bamboohr`, `merge`, `sftp`). */
  readonly source: string;
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super(`Roster source ${source}: ${scrubHint(message)}`, options);
    this.source = source;
  }
}

/** The HRIS refused the credential (401, 403, a rejected SSH key or host key): the operator must fix it. */
export class RosterSourceAuthError extends RosterPullError {
  override readonly exitCode: ExitCode = EXIT_USAGE;
}

/** The fix for a read-only key where reconciliation writes: said by the error and by the daemon's note alike. */
export const READ_ONLY_FIX =
  "create a read+write key in the dashboard (Settings, Developers) and set RETENTION_API_KEY to it " +
  "(a key's scopes are fixed when it is created), or turn reconciliation off (unset HRIS_ROSTER_FILE or set roster.enabled: false)";

/** A read-only key where reconciliation needs to write. */
export class ReadOnlyKeyError extends ConfigError {
  constructor(scopes: readonly string[]) {
    super("API key", [
      {
        path: "api.key (RETENTION_API_KEY)",
        message: `the key is read-only (scopes: ${scopes.join(", ") || "none"}) and reconciliation writes to the roster: ${READ_ONLY_FIX}`,
      },
    ]);
  }
}

/** Said when a plan file holds an `allowMassArchive` field: what happened to it and what approves instead. */
export const IGNORED_APPROVAL =
  "the plan file's allowMassArchive field was ignored: a plan carries no approval; the mass-archive guard is " +
  "lifted only when applying, by --allow-mass-archive or roster.approveMassArchive";

/**
 * A saved plan whose archives the mass-archive guard now holds, and nothing else differs: the plan
 * is right, the approval is missing (exit code 3, like a held guard). Nothing was changed.
 */
export class PlanNeedsApprovalError extends RetentionSyncError {
  readonly exitCode = EXIT_PARTIAL;
  constructor(
    readonly planFile: string,
    held: { readonly archives: number; readonly managed: number; readonly percent: number },
    limits: { readonly maxArchiveCount: number; readonly maxArchivePercent: number },
    ignoredApproval: boolean,
  ) {
    super(
      `the saved plan ${planFile} archives ${held.archives} of the ${held.managed} people managed from the HRIS export ` +
        `(${held.percent} %), over the limit of ${limits.maxArchiveCount} people or ${limits.maxArchivePercent} %: ` +
        "the mass-archive guard holds them and nothing was changed. A plan carries no approval: check the plan, then " +
        `apply it with reconcile --plan ${planFile} --allow-mass-archive (or set roster.approveMassArchive)` +
        (ignoredApproval ? `. Note: ${IGNORED_APPROVAL}` : ""),
    );
  }
}

/** A saved plan that no longer matches what is true now (exit code 2: make a new plan). */
export class StalePlanError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  constructor(
    readonly planFile: string,
    /** Every step that differs (the message shows the first 25), and the inputs that changed. */
    readonly differences: { readonly steps: readonly string[]; readonly inputs: readonly string[] },
  ) {
    const { steps, inputs } = differences;
    const done = steps.length > 0 && steps.every((d) => d.startsWith("- ") && d.endsWith(NO_LONGER_NEEDED));
    super(
      `the saved plan ${planFile} is stale; nothing was changed. Make a new one with reconcile --dry-run --out. ` +
        `${steps.length} step${steps.length === 1 ? "" : "s"} differ${steps.length === 1 ? "s" : ""}` +
        `${done ? " (none of them is needed any more: was this plan applied already?)" : ""}:\n` +
        [...shown(steps, 25), ...inputs.map((d) => `because ${d}`)].map((d) => `  ${d}`).join("\n"),
    );
  }
}

function shown(lines: readonly string[], limit: number): string[] {
  return lines.length <= limit ? [...lines] : [...lines.slice(0, limit), `...and ${lines.length - limit} more`];
}

/** How `planDifferences` words a saved step the service or the export has made needless; a plan all of these was applied. */
export const NO_LONGER_NEEDED = "no longer needed (the service or the export already says otherwise)";

/** A plan file that cannot be read as a plan (exit code 2). */
export class PlanFileError extends RetentionSyncError {
  readonly exitCode = EXIT_USAGE;
  constructor(planFile: string, why: string) {
    super(`plan file ${planFile}: ${why}`);
  }
}
