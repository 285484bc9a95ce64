import { createHash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { posix } from "node:path";
import type { Client } from "ssh2";
import type SftpClient from "ssh2-sftp-client";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { sleepUnlessAborted } from "../../timers.js";
import type { HttpPullOptions } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig, SourceSecrets } from "./source-secrets.js";

type SftpConfig = Extract<SourceConfig, { type: "sftp" }>;

/** How a file without a done marker is judged still: two looks this far apart must agree. */
export interface SftpSettleOptions {
  /** The pause between two looks at the file (default 5 s). */
  readonly settleMs?: number;
  /** Looks after the first before a file that keeps changing fails the pull (default 4). */
  readonly settleLooks?: number;
}

const SETTLE_MS = 5_000;
const SETTLE_LOOKS = 4;
/** Tries per pull against a connection that fails or is cut (the first included). */
const DEFAULT_ATTEMPTS = 3;
/** The largest read asked for at once; the client splits it into the server's largest reads. */
const READ_CHUNK = 1024 * 1024;
/** Names shown when no file matches. */
const SHOWN_NAMES = 10;
const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;

/** The file chosen, as one look at it saw it. */
interface Look {
  readonly size: number;
  /** Milliseconds since the epoch (SFTP gives whole seconds). */
  readonly mtimeMs: number;
}

/** What is kept beside the last complete pull: which remote file it was. */
interface Kept {
  readonly remote: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly name: string;
}

/** Why one try failed, when another try may fix it (a refused or cut connection, a timeout). */
class TryFailed extends Error {}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.replace(/^[a-zA-Z_]+(->[a-zA-Z_]+)*: /, "");
    return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/** The SFTP status code of a failed request (2: no such file, 3: permission denied), if any. */
function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}

/** The SHA-256 fingerprint of a host key blob as `ssh-keygen -l` prints it: base64, no padding. */
export function sshFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash("sha256").update(keyBlob).digest("base64").replace(/=+$/, "")}`;
}

/** The key type named at the start of a key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa`). */
function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return "unknown";
  const length = keyBlob.readUInt32BE(0);
  return length > 0 && length < 64 && keyBlob.length >= 4 + length
    ? keyBlob.subarray(4, 4 + length).toString("latin1")
    : "unknown";
}

/** A file name pattern (`workers-*.csv`): `*` any run of characters, `?` one; the rest as written. */
export function globPattern(glob: string): RegExp {
  const body = [...glob]
    .map((c) => (c === "*" ? "[^/]*" : c === "?" ? "[^/]" : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** `path` as a folder and a file name pattern; a pattern in the folder is refused. */
export function splitPath(path: string): { dir: string; pattern: string } {
  const dir = posix.dirname(path);
  const pattern = posix.basename(path);
  if (/[*?]/.test(dir)) {
    throw new RosterSourceAuthError(
      "config",
      `roster.source.path ${path}: only the file name may hold a pattern (* or ?), not the folder`,
    );
  }
  if (pattern.length === 0 || path.endsWith("/")) {
    throw new RosterSourceAuthError(
      "config",
      `roster.source.path ${path}: expected a folder and a file name pattern, e.g. /exports/workers-*.csv`,
    );
  }
  return { dir, pattern };
}

/** The pulled file's local name: the remote extension when the reader knows it (so `auto` reads it). */
function localName(remoteName: string): string {
  const ext = posix.extname(remoteName).toLowerCase();
  return [".csv", ".tsv", ".txt", ".json", ".ndjson", ".jsonl"].includes(ext) ? `sftp${ext}` : "sftp.export";
}

function when(ms: number): string {
  return new Date(ms).toISOString();
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * One SSH connection with its SFTP session: every request is cut (and the connection closed)
 * when it takes longer than the timeout, or when the run is stopped.
 */
class Session {
  private stopped = false;

  private constructor(
    readonly client: SftpClient,
    private readonly timeoutMs: number,
    private readonly where: string,
  ) {}

  /** Opens the connection; the host key is checked before any credential is sent. */
  static async open(
    config: SftpConfig,
    credential: { readonly privateKey?: Buffer; readonly password?: string },
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Session> {
    const where = `${config.host}:${config.port}`;
    const expected = `SHA256:${config.hostKey.replace(/^SHA256:/, "").replace(/=+$/, "")}`;
    const quiet = { error: () => {}, end: () => {}, close: () => {} };
    // Loaded on the first pull only: a daemon without an SFTP source never loads the SSH stack.
    const { default: Client } = await import("ssh2-sftp-client");
    const client = new Client("retention-sync", quiet);
    let presented: { type: string; fingerprint: string } | undefined;
    let raw: (Error & { level?: string; code?: unknown }) | undefined;
    client.on("error", (error: Error) => {
      raw ??= error;
    });
    const password = credential.password;
    if (password !== undefined) {
      // Servers that take a password only through keyboard-interactive ask for it there.
      client.on("keyboard-interactive", (...args: unknown[]) => {
        const prompts = args[3] as unknown[];
        const finish = args[4] as (answers: string[]) => void;
        finish(prompts.map(() => password));
      });
    }
    const session = new Session(client, timeoutMs, where);
    const stop = () => session.destroy();
    signal?.addEventListener("abort", stop, { once: true });
    try {
      await client.connect({
        host: config.host,
        port: config.port,
        username: config.username,
        ...(credential.privateKey ? { privateKey: credential.privateKey } : {}),
        ...(password !== undefined ? { password, tryKeyboard: true } : {}),
        // The key first, then the password, then the password through keyboard-interactive.
        authHandler: [
          "none",
          ...(credential.privateKey ? (["publickey"] as const) : []),
          ...(password !== undefined ? (["password", "keyboard-interactive"] as const) : []),
        ],
        readyTimeout: timeoutMs,
        // Never trusted on first use: the key must be the one configured.
        hostVerifier: (key: Buffer) => {
          presented = { type: keyType(key), fingerprint: sshFingerprint(key) };
          return presented.fingerprint === expected;
        },
      });
    } catch (error) {
      session.destroy();
      if (signal?.aborted) throw new RosterPullError("sftp", `${where}: the pull was stopped while connecting`);
      if (presented && presented.fingerprint !== expected) {
        throw new RosterSourceAuthError(
          "sftp",
          `${where} presented an ${presented.type} host key whose fingerprint is not roster.source.hostKey: ` +
            "this is not the server configured, or its key changed. Nothing was sent to it. Confirm the server's " +
            `${presented.type} key fingerprint with its owner (ssh-keyscan + ssh-keygen -l, docs/sources/sftp.md) before changing hostKey`,
          { cause: error },
        );
      }
      const reason = (raw ?? error) as Error & { level?: string };
      if (reason.level === "client-authentication") {
        const what = credential.privateKey ? (password !== undefined ? "key and password" : "key") : "password";
        const check = credential.privateKey
          ? "roster.source.username, privateKeyFile, and that the server lists the key's public half for the user"
          : "roster.source.username and SFTP_PASSWORD";
        throw new RosterSourceAuthError("sftp", `${where} refused ${config.username}'s ${what}: check ${check}`);
      }
      if (/privateKey|passphrase|private key/i.test(reason.message)) {
        throw new RosterSourceAuthError(
          "sftp",
          `the private key ${config.privateKeyFile ?? ""} cannot be used (${describe(reason)}): ` +
            "use an unencrypted OpenSSH or PEM key, readable only by the daemon",
        );
      }
      if (reason.level === "client-timeout") {
        throw new TryFailed(`${where} did not finish the SSH handshake in ${timeoutMs / 1000} s`);
      }
      if (reason.level === "handshake" || reason.level === "protocol") {
        throw new RosterPullError("sftp", `${where}: the SSH handshake failed (${describe(reason)})`);
      }
      throw new TryFailed(`${where} could not be reached (${describe(reason)})`);
    } finally {
      signal?.removeEventListener("abort", stop);
    }
    if (signal?.aborted) {
      session.destroy();
      throw new RosterPullError("sftp", `${where}: the pull was stopped`);
    }
    signal?.addEventListener("abort", stop, { once: true });
    session.unlisten = () => signal?.removeEventListener("abort", stop);
    return session;
  }

  private unlisten: () => void = () => {};

  /** The underlying SSH connection (ssh2's Client), to cut it at once. */
  private get ssh(): Client | undefined {
    return (this.client as unknown as { client?: Client }).client;
  }

  destroy(): void {
    this.stopped = true;
    this.ssh?.destroy();
  }

  /** Ends the session politely, or cuts it when the server does not answer in time. */
  async close(): Promise<void> {
    this.unlisten();
    if (this.stopped) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.client.end().catch(() => false),
      new Promise((resolve) => {
        timer = setTimeout(resolve, Math.min(this.timeoutMs, 5_000));
      }),
    ]);
    clearTimeout(timer);
    this.destroy();
  }

  /** One request, given up (and the connection cut) after the timeout. */
  async request<T>(what: string, run: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.destroy();
        reject(new TryFailed(`${this.where}: ${what} got no answer in ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([run(), timeout]);
    } catch (error) {
      if (error instanceof TryFailed || error instanceof RosterPullError) throw error;
      if (this.stopped || statusCode(error) === undefined) {
        throw new TryFailed(`${this.where}: ${what} failed (${describe(error)})`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Downloads `remote` into `file` (owner-only), counting the bytes: a read longer than `maxBytes`
   * stops, a connection closed or silent for longer than the timeout fails the try.
   */
  async download(remote: string, file: string, maxBytes: number): Promise<number> {
    const input = this.client.createReadStream(remote, { highWaterMark: READ_CHUNK });
    const output = createWriteStream(file, { flags: "w", mode: 0o600 });
    const seconds = this.timeoutMs / 1000;
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    let settle: (error?: Error) => void = () => {};
    const done = new Promise<void>((resolve, reject) => {
      let settled = false;
      settle = (error) => {
        if (settled) return;
        settled = true;
        if (error) reject(error);
        else resolve();
      };
    });
    // Settled here, not by the stream's own error: a read stream on a dead connection never ends.
    const fail = (error: Error) => {
      settle(error);
      input.destroy();
    };
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.destroy();
        fail(new TryFailed(`${this.where}: ${remote}: no data for ${seconds} s after ${bytes} bytes`));
      }, this.timeoutMs);
    };
    const closed = () => fail(new TryFailed(`${this.where}: the connection closed after ${bytes} bytes of ${remote}`));
    this.client.on("close", closed);
    input.on("error", (error: Error) =>
      fail(
        this.stopped
          ? new TryFailed(`${this.where}: ${remote}: the download was cut after ${bytes} bytes`)
          : statusCode(error) !== undefined && bytes === 0
            ? new TryFailed(`${remote} could not be opened (${describe(error)})`)
            : new TryFailed(`${this.where}: ${remote}: the download failed after ${bytes} bytes (${describe(error)})`),
      ),
    );
    output.on("error", (error: Error) =>
      fail(new RosterPullError("sftp", `the pull could not be written to ${file} (${describe(error)})`)),
    );
    input.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        fail(
          new RosterPullError(
            "sftp",
            `${remote} is longer than ${maxBytes} bytes (roster.source.maxBytes); nothing was read`,
          ),
        );
        return;
      }
      idle();
      if (!output.write(chunk)) {
        input.pause();
        output.once("drain", () => input.resume());
      }
    });
    input.on("end", () => settle());
    idle();
    try {
      await done;
    } finally {
      clearTimeout(timer);
      this.client.removeListener("close", closed);
      if (!output.closed) {
        const closing = once(output, "close").catch(() => undefined);
        output.end();
        await closing;
      }
    }
    return bytes;
  }
}

/**
 * A file an HRIS job drops on an SFTP server (a Workday EIB, an ADP or SuccessFactors scheduled
 * export): the newest file in a folder whose name matches a pattern, read only once it is whole
 * (its done marker exists, or its size and modification time hold still between two looks), over
 * SSH with the server's host key checked against the configured fingerprint. The pulled export's
 * modification time is the remote file's, so `roster.staleAfter` warns when the newest file is old.
 */
export class SftpSource implements RosterSource {
  readonly type = "sftp" as const;

  constructor(
    readonly config: SftpConfig,
    readonly secrets: SourceSecrets,
    readonly store: PullStore,
    readonly http: Omit<HttpPullOptions, "source" | "timeoutMs" | "maxBytes"> = {},
    readonly now: () => Date = () => new Date(),
    readonly settle: SftpSettleOptions = {},
  ) {}

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
      const name = await this.newest(session, where);
      const remote = posix.join(where.dir, name);
      const key = this.origin(remote);
      const first = await this.look(session, remote);
      // The very file of the last complete pull, still there and unchanged: no need to wait or read it again.
      const kept = await this.store.meta<Kept>("sftp");
      if (kept?.remote === key && kept.size === first.size && kept.mtimeMs === first.mtimeMs && first.mtimeMs > 0) {
        const file = this.store.path(kept.name);
        if ((await stat(file).catch(() => undefined))?.size === first.size) {
          return this.pulled(file, key, { ...this.facts(name, first), notModified: true });
        }
      }
      const look = await this.whole(session, remote, first, signal);
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

  /** The newest file of the folder matching the pattern (done markers left out), by modification time. */
  private async newest(session: Session, where: { dir: string; pattern: string }): Promise<string> {
    const { dir, pattern } = where;
    const marker = this.config.doneMarker;
    let entries: SftpClient.FileInfo[];
    try {
      entries = await session.request(`listing ${dir}`, () => session.client.list(dir));
    } catch (error) {
      const code = statusCode(error);
      if (code === SFTP_PERMISSION_DENIED) {
        throw new RosterSourceAuthError(
          "sftp",
          `${this.config.host}: ${this.config.username} may not list ${dir} (permission denied)`,
        );
      }
      if (code === SFTP_NO_SUCH_FILE) {
        throw new RosterPullError("sftp", `${this.origin(dir)}: no such folder on the server`);
      }
      if (code !== undefined) throw new RosterPullError("sftp", `listing ${dir} failed (${describe(error)})`);
      throw error;
    }
    const match = globPattern(pattern);
    const files = entries.filter((e) => e.type !== "d" && e.name !== "." && e.name !== "..");
    const candidates = files
      .filter((e) => match.test(e.name) && !(marker && e.name.endsWith(marker)))
      .sort((a, b) => b.modifyTime - a.modifyTime || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const newest = candidates[0];
    if (newest === undefined) {
      const names = files.map((e) => e.name).sort();
      const shown = names.slice(0, SHOWN_NAMES).join(", ");
      const more = names.length > SHOWN_NAMES ? `, and ${names.length - SHOWN_NAMES} more` : "";
      throw new RosterPullError(
        "sftp",
        `no file in ${this.origin(dir)} matches ${pattern}: ${
          names.length === 0 ? "the folder is empty" : `found ${plural(names.length, "file")}: ${shown}${more}`
        }. Nothing was read; the next schedule looks again`,
      );
    }
    if (marker && !files.some((e) => e.name === `${newest.name}${marker}`)) {
      throw new RosterPullError(
        "sftp",
        `${posix.join(dir, newest.name)} (${newest.size} bytes, modified ${when(newest.modifyTime)}) has no ` +
          `${newest.name}${marker} yet: it is still being delivered, or its delivery failed. Not read; the next schedule looks again`,
      );
    }
    return newest.name;
  }

  private async look(session: Session, remote: string): Promise<Look> {
    try {
      const attrs = await session.request(`stat of ${remote}`, () => session.client.stat(remote));
      if (!attrs.isFile) throw new RosterPullError("sftp", `${remote} is not a regular file`);
      // A server that gives no modification time: 0, and the pull's time stands for it.
      const mtimeMs = Number.isFinite(attrs.modifyTime) && attrs.modifyTime > 0 ? attrs.modifyTime : 0;
      return { size: attrs.size, mtimeMs };
    } catch (error) {
      if (statusCode(error) !== undefined) {
        // Listed a moment ago and gone now: replaced or moved while we looked.
        throw new TryFailed(`${remote} could not be looked at (${describe(error)})`);
      }
      throw error;
    }
  }

  /**
   * The file once it is whole: with a done marker, as it is (the marker says so); without one,
   * once its size and modification time hold still between two looks a pause apart.
   */
  private async whole(session: Session, remote: string, first: Look, signal: AbortSignal | undefined): Promise<Look> {
    if (this.config.doneMarker) return first;
    const pause = this.settle.settleMs ?? SETTLE_MS;
    const looks = this.settle.settleLooks ?? SETTLE_LOOKS;
    const sleep = this.http.sleep ?? sleepUnlessAborted;
    const seen = [first];
    for (let n = 1; n <= looks; n += 1) {
      await sleep(pause, signal);
      if (signal?.aborted) throw new RosterPullError("sftp", `${remote}: the pull was stopped`);
      const next = await this.look(session, remote);
      const previous = seen[seen.length - 1] as Look;
      if (next.size === previous.size && next.mtimeMs === previous.mtimeMs) return next;
      seen.push(next);
    }
    const sizes = seen.map((l) => `${l.size} bytes at ${when(l.mtimeMs)}`).join(", then ");
    throw new RosterPullError(
      "sftp",
      `${remote} kept changing over ${plural(seen.length, "look")} ${Math.round(pause / 1000)} s apart (${sizes}): ` +
        "it is still being written. Not read; the next schedule tries again (a doneMarker, when the HRIS writes one, says when a file is whole)",
    );
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
      const bytes = await session.download(remote, temporary, this.config.maxBytes);
      if (bytes !== look.size) {
        throw new RosterPullError(
          "sftp",
          `${remote}: ${bytes} bytes downloaded, ${look.size} listed: the file changed while it was read. Not read; the next schedule tries again`,
        );
      }
      const after = await this.look(session, remote);
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
