import { readFile, stat } from "node:fs/promises";
import { posix } from "node:path";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { sleepUnlessAborted } from "../../timers.js";
import type { PullSeams } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import { PulledSource } from "./pulled-source.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import { describe, plural, type SftpConfig, TryFailed, when } from "./sftp-common.js";
import { download } from "./sftp-download.js";
import { newestFile, splitPath } from "./sftp-listing.js";
import { Session } from "./sftp-session.js";
import { type Look, lookAt, type SftpSettleOptions, untilWhole } from "./sftp-settle.js";
import type { SourceSecrets } from "./source-secrets.js";

export { sshFingerprint } from "./sftp-host-key.js";
export { globPattern, splitPath } from "./sftp-listing.js";
export type { SftpSettleOptions } from "./sftp-settle.js";

/** Tries per pull against a connection that fails or is cut (the first included). */
const DEFAULT_ATTEMPTS = 3;

/** What is kept beside the last complete pull: which remote file it was. */
interface Kept {
  readonly remote: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly name: string;
}

/** The pulled file's local name: the remote extension when the reader knows it (so `auto` reads it). */
function localName(remoteName: string): string {
  const ext = posix.extname(remoteName).toLowerCase();
  return [".csv", ".tsv", ".txt", ".json", ".ndjson", ".jsonl"].includes(ext) ? `sftp${ext}` : "sftp.export";
}

/**
 * A file an HRIS job drops on an SFTP server (a Workday EIB, an ADP or SuccessFactors scheduled
 * export): the newest file in a folder whose name matches a pattern, read only once it is whole
 * (its done marker exists, or its size and modification time hold still between two looks), over
 * SSH with the server's host key checked against the configured fingerprint. The pulled export's
 * modification time is the remote file's, so `roster.staleAfter` warns when the newest file is old.
 */
export class SftpSource extends PulledSource<SftpConfig> implements RosterSource {
  readonly type = "sftp" as const;

  constructor(
    config: SftpConfig,
    secrets: SourceSecrets,
    store: PullStore,
    http: PullSeams = {},
    now: () => Date = () => new Date(),
    readonly settle: SftpSettleOptions = {},
  ) {
    super(config, secrets, store, http, now);
  }

  /** `sftp://host[:port]/dir/name`: where an export came from, without the user or a credential. */
  origin(remote: string): string {
    const port = this.config.port === 22 ? "" : `:${this.config.port}`;
    return `sftp://${this.config.host}${port}${remote.startsWith("/") ? "" : "/"}${remote}`;
  }

  async pull(signal?: AbortSignal): Promise<PulledExport> {
    const where = splitPath(this.config.path);
    const credential = await this.credential();
    const attempts = this.http.attempts ?? DEFAULT_ATTEMPTS;
    const sleep = this.http.sleep ?? sleepUnlessAborted;
    let last = "";
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      try {
        return await this.pullOnce(where, credential, signal);
      } catch (error) {
        if (signal?.aborted) {
          throw new RosterPullError("sftp", `the pull was stopped (${describe(error)})`, { cause: error });
        }
        if (!(error instanceof TryFailed)) throw error;
        last = error.message;
        if (attempt === attempts) break;
        await sleep(1000 * 2 ** (attempt - 1), signal);
        if (signal?.aborted) throw new RosterPullError("sftp", `${last}; stopped while waiting to try again`);
      }
    }
    throw new RosterPullError("sftp", `${last} (${plural(attempts, "try", "tries")}); the next schedule tries again`);
  }

  /** The key from privateKeyFile and the password (SFTP_PASSWORD): at least one is needed. */
  private async credential(): Promise<{ privateKey?: Buffer; password?: string }> {
    const password = this.secrets.password;
    const file = this.config.privateKeyFile;
    if (file === undefined) {
      if (password === undefined) {
        throw new RosterSourceAuthError(
          "config",
          "roster.source (sftp) has no credential: set privateKeyFile, or the password in SFTP_PASSWORD",
        );
      }
      return { password };
    }
    let privateKey: Buffer;
    try {
      privateKey = await readFile(file);
    } catch (error) {
      throw new RosterSourceAuthError(
        "config",
        `roster.source.privateKeyFile ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    return { privateKey, ...(password !== undefined ? { password } : {}) };
  }

  private async pullOnce(
    where: { dir: string; pattern: string },
    credential: { privateKey?: Buffer; password?: string },
    signal: AbortSignal | undefined,
  ): Promise<PulledExport> {
    const timeoutMs = this.config.timeoutSeconds * 1000;
    const session = await Session.open(this.config, credential, timeoutMs, signal);
    try {
      const name = await newestFile(session, this.config, where, (remote) => this.origin(remote));
      const remote = posix.join(where.dir, name);
      const key = this.origin(remote);
      const first = await lookAt(session, remote);
      // The very file of the last complete pull, still there and unchanged: no need to wait or read it again.
      const kept = await this.store.meta<Kept>("sftp");
      if (kept?.remote === key && kept.size === first.size && kept.mtimeMs === first.mtimeMs && first.mtimeMs > 0) {
        const file = this.store.path(kept.name);
        if ((await stat(file).catch(() => undefined))?.size === first.size) {
          return this.pulled(file, key, { ...this.facts(name, first), notModified: true });
        }
      }
      const look = await untilWhole(
        session,
        remote,
        first,
        { doneMarker: this.config.doneMarker, settle: this.settle, sleep: this.http.sleep ?? sleepUnlessAborted },
        signal,
      );
      if (look.size === 0) {
        throw new RosterPullError("sftp", `${remote} is empty (0 bytes, modified ${when(look.mtimeMs)}): not read`);
      }
      if (look.size > this.config.maxBytes) {
        throw new RosterPullError(
          "sftp",
          `${remote} is ${look.size} bytes, more than roster.source.maxBytes (${this.config.maxBytes}); nothing was read`,
        );
      }
      const facts = this.facts(name, look);
      return await this.download(session, remote, look, key, facts);
    } finally {
      await session.close();
    }
  }

  /** The source's facts for `check` and the report: which file, how large, when the HRIS wrote it. */
  private facts(name: string, look: Look): Record<string, string | number | boolean> {
    return {
      file: name,
      bytes: look.size,
      modifiedAt: when(look.mtimeMs),
      ...(this.config.doneMarker ? { doneMarker: `${name}${this.config.doneMarker}` } : {}),
    };
  }

  private async download(
    session: Session,
    remote: string,
    look: Look,
    key: string,
    facts: Record<string, string | number | boolean>,
  ): Promise<PulledExport> {
    const name = localName(posix.basename(remote));
    const temporary = await this.store.temporary(name);
    try {
      const bytes = await download(session, remote, temporary, this.config.maxBytes);
      if (bytes !== look.size) {
        throw new RosterPullError(
          "sftp",
          `${remote}: ${bytes} bytes downloaded, ${look.size} listed: the file changed while it was read. Not read; the next schedule tries again`,
        );
      }
      const after = await lookAt(session, remote);
      if (after.size !== look.size || after.mtimeMs !== look.mtimeMs) {
        throw new RosterPullError(
          "sftp",
          `${remote} changed while it was read (${look.size} bytes at ${when(look.mtimeMs)}, then ${after.size} bytes at ${when(after.mtimeMs)}). Not read; the next schedule tries again`,
        );
      }
      const file = await this.store.commit(temporary, name, look.mtimeMs > 0 ? new Date(look.mtimeMs) : this.now());
      await this.store.saveMeta("sftp", { remote: key, size: look.size, mtimeMs: look.mtimeMs, name } satisfies Kept);
      return this.pulled(file, key, facts);
    } catch (error) {
      await this.store.discard(temporary);
      throw error;
    }
  }

  private pulled(file: string, origin: string, facts: Record<string, string | number | boolean>): PulledExport {
    return { file, format: this.config.format, origin, facts };
  }
}
