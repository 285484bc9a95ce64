/**
 * Where the roster export comes from: a file on the daemon's volume (`file`, the default), or a
 * pull from the HRIS (`https`, `bamboohr`, `merge`, `sftp`). A pull is an export only when it
 * completed: every page read, the body whole. It is then one local file, read by `readRoster`
 * like any export: its modification time is when the pull completed (so each complete pull is one
 * export, as a fresh nightly file is, and the fingerprint's content hash says whether it changed).
 */
export type SourceType = "file" | "https" | "bamboohr" | "merge" | "sftp";

/** A complete pull, on local disk. */
export interface PulledExport {
  /** The local file holding the whole export. */
  readonly file: string;
  /** How to read it: `auto` goes by the file's name and first bytes. */
  readonly format: "auto" | "csv" | "json" | "ndjson";
  /** Where it came from, for reports and logs, without credentials: `https://host/path`, `sftp://host/dir/name`. */
  readonly origin: string;
  /** The source's own facts for `check` and the report: pages, records, ETag, which SFTP file. */
  readonly facts: Readonly<Record<string, string | number | boolean>>;
}

/** One source of roster exports; `pull` is called once per reconcile run. */
export interface RosterSource {
  readonly type: Exclude<SourceType, "file">;
  /** Pulls the whole export; throws RosterPullError (exit 1) or RosterSourceAuthError (exit 2). */
  pull(signal?: AbortSignal): Promise<PulledExport>;
}
