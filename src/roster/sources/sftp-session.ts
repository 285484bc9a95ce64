import type { Client } from "ssh2";
import type SftpClient from "ssh2-sftp-client";
import { RosterPullError, RosterSourceAuthError } from "../../errors.js";
import { describe, type SftpConfig, statusCode, TryFailed } from "./sftp-common.js";
import { expectedFingerprint, keyType, sshFingerprint } from "./sftp-host-key.js";

/**
 * One SSH connection with its SFTP session: every request is cut (and the connection closed)
 * when it takes longer than the timeout, or when the run is stopped.
 */
export class Session {
  private cut = false;

  private constructor(
    readonly client: SftpClient,
    readonly timeoutMs: number,
    /** `host:port`, for messages. */
    readonly where: string,
  ) {}

  /** Opens the connection; the host key is checked before any credential is sent. */
  static async open(
    config: SftpConfig,
    credential: { readonly privateKey?: Buffer; readonly password?: string },
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Session> {
    const where = `${config.host}:${config.port}`;
    const expected = expectedFingerprint(config.hostKey);
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

  /** Once the connection is cut, a request failing is a cut connection, not the server's answer. */
  get stopped(): boolean {
    return this.cut;
  }

  destroy(): void {
    this.cut = true;
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
}
