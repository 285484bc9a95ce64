/**
 * A local SFTP server for the sftp roster source's tests: ssh2's `Server` on 127.0.0.1 (port 0)
 * with an in-memory SFTP subsystem, standing for the server a Workday EIB, an ADP or a
 * SuccessFactors scheduled export delivers to.
 *
 * It behaves as an OpenSSH server does, after:
 * - ssh2's server documentation and its "SFTP-only server" example (the authentication context,
 *   the SFTP server-side requests and answers): https://github.com/mscdex/ssh2#server-examples,
 *   https://github.com/mscdex/ssh2/blob/master/SFTP.md
 * - the SSH authentication protocol, RFC 4252 (https://www.rfc-editor.org/rfc/rfc4252): the
 *   `none` request answered with the methods that can continue; `publickey` answered PK_OK for a
 *   listed key without a signature, accepted only with a valid signature; `password`; and
 *   `keyboard-interactive`, RFC 4256 (https://www.rfc-editor.org/rfc/rfc4256)
 * - the SFTP protocol as OpenSSH speaks it, draft-ietf-secsh-filexfer-02
 *   (https://datatracker.ietf.org/doc/html/draft-ietf-secsh-filexfer-02): OPENDIR/READDIR with
 *   `ls -l` style long names then EOF, STAT attributes with whole-second times, OPEN/READ answered
 *   with at most the bytes asked for and EOF past the end, status codes 2 (no such file) and 3
 *   (permission denied)
 * - host key fingerprints as `ssh-keygen -l` prints them (SHA-256 of the key blob, base64 without
 *   padding): https://man.openbsd.org/ssh-keygen.1
 *
 * It can be told to misbehave: a file that grows at every look (still being written), a
 * connection cut part-way through a download, a read that never answers, a folder it refuses.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { posix } from "node:path";
import { type AuthContext, type Connection, type ParsedKey, Server, type SFTPWrapper, utils } from "ssh2";
import { registerSecret } from "../known-secrets.js";

const { STATUS_CODE } = utils.sftp;

export interface FakeFileOptions {
  /** Modification time (default: now). */
  readonly mtime?: Date;
  /** At every STAT of it, this is appended and its time moves on: a file still being written. */
  readonly growsBy?: string;
  /** ...this many times (default: at every look). */
  readonly growths?: number;
  /** The connection is cut once this many bytes of the file were sent... */
  readonly cutAfter?: number;
  /** ...on this many downloads (default: all of them). */
  readonly cuts?: number;
  /** A read at or past this byte is never answered (a server that hangs). */
  readonly stallAfter?: number;
}

interface FakeFile extends FakeFileOptions {
  content: Buffer;
  mtimeSeconds: number;
  cutsLeft: number;
  growthsLeft: number;
}

export interface SftpFakeOptions {
  readonly username?: string;
  /** The accepted password (none: passwords are refused). */
  readonly password?: string;
  /** Passwords through keyboard-interactive only, as servers with PasswordAuthentication off do. */
  readonly passwordVia?: "password" | "keyboard-interactive";
}

export interface SftpFake {
  readonly port: number;
  readonly username: string;
  /** The server's host key fingerprint, as `ssh-keygen -l` prints it. */
  readonly hostKey: string;
  /** The OpenSSH private key whose public half is authorised for the user. */
  readonly clientPrivateKey: string;
  /** Authentication requests, `<method> <accepted|refused|pk-ok>`, in order. */
  readonly auth: string[];
  /** SFTP requests, `<TYPE> <path>` (READs once per open file), in order. */
  readonly requests: string[];
  /** Connections accepted (TCP), whether or not they logged in. */
  connections(): number;
  put(path: string, content: string | Buffer, options?: FakeFileOptions): void;
  remove(path: string): void;
  /** A folder whose listing is refused (permission denied). */
  forbid(dir: string): void;
  close(): Promise<void>;
}

/** `SHA256:<base64 without padding>` of a public key, as ssh-keygen -l prints it. */
export function fingerprintOf(publicKey: string | Buffer): string {
  const blob = parseKey(publicKey).getPublicSSH();
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

function parseKey(key: string | Buffer): ParsedKey {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!first) throw new Error("no key");
  return first as ParsedKey;
}

/**
 * A new ed25519 key pair in OpenSSH format. ssh2's generator now and then (about 1 in 400) writes
 * a key whose first byte is zero one byte short, which its own parser then refuses: such a pair
 * is made again.
 */
export function newKeyPair(): { privateKey: string; publicKey: string; fingerprint: string } {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const pair = utils.generateKeyPairSync("ed25519");
    if (utils.parseKey(pair.public) instanceof Error || utils.parseKey(pair.private) instanceof Error) continue;
    return { privateKey: pair.private, publicKey: pair.public, fingerprint: fingerprintOf(pair.public) };
  }
  throw new Error("ssh2 made no usable ed25519 key in 20 tries");
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** An `ls -l` line as OpenSSH's sftp-server writes a long name. */
function longName(name: string, size: number, mtimeSeconds: number, dir: boolean): string {
  const d = new Date(mtimeSeconds * 1000);
  const date = `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2)} ${String(d.getUTCHours()).padStart(2, "0")}:${String(d.getUTCMinutes()).padStart(2, "0")}`;
  const mode = dir ? "drwxr-xr-x" : "-rw-r-----";
  return `${mode}    1 hris     hris     ${String(size).padStart(8)} ${date} ${name}`;
}

export async function startSftpFake(options: SftpFakeOptions = {}): Promise<SftpFake> {
  const username = options.username ?? "retention";
  const host = newKeyPair();
  const client = newKeyPair();
  const authorised = parseKey(client.publicKey);
  // For the suite's log audit: neither the user's key nor the password may reach a log line.
  for (const line of client.privateKey.split("\n")) {
    if (!line.startsWith("-----") && line.trim().length >= 16) registerSecret(line.trim(), "SFTP fake's user key");
  }
  if (options.password !== undefined) registerSecret(options.password, "SFTP fake's password");
  const files = new Map<string, FakeFile>();
  const forbidden = new Set<string>();
  const auth: string[] = [];
  const requests: string[] = [];
  const live = new Set<Connection>();
  let accepted = 0;

  const methods = (): Array<"publickey" | "password" | "keyboard-interactive"> => [
    "publickey",
    ...(options.password !== undefined ? [options.passwordVia ?? "password"] : []),
  ];

  function authenticate(ctx: AuthContext): void {
    if (!same(ctx.username, username)) {
      auth.push(`${ctx.method} refused`);
      ctx.reject(methods());
      return;
    }
    switch (ctx.method) {
      case "publickey": {
        const known = ctx.key.algo === authorised.type && ctx.key.data.equals(authorised.getPublicSSH());
        if (!known) break;
        if (!ctx.signature) {
          // RFC 4252 7: a listed key without a signature is answered PK_OK; the client then signs.
          auth.push("publickey pk-ok");
          ctx.accept();
          return;
        }
        if (ctx.blob && authorised.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) {
          auth.push("publickey accepted");
          ctx.accept();
          return;
        }
        break;
      }
      case "password":
        if (options.password !== undefined && options.passwordVia !== "keyboard-interactive") {
          if (same(ctx.password, options.password)) {
            auth.push("password accepted");
            ctx.accept();
            return;
          }
        }
        break;
      case "keyboard-interactive":
        if (options.password !== undefined && options.passwordVia === "keyboard-interactive") {
          const password = options.password;
          ctx.prompt([{ prompt: "Password: ", echo: false }], (answers) => {
            if (answers.length === 1 && same(answers[0] ?? "", password)) {
              auth.push("keyboard-interactive accepted");
              ctx.accept();
            } else {
              auth.push("keyboard-interactive refused");
              ctx.reject(methods());
            }
          });
          return;
        }
        break;
      default:
        break;
    }
    auth.push(`${ctx.method} refused`);
    ctx.reject(methods());
  }

  function entriesOf(dir: string): Array<{ name: string; file?: FakeFile; dir?: true }> {
    const out = new Map<string, { name: string; file?: FakeFile; dir?: true }>();
    for (const [path, file] of files) {
      if (!path.startsWith(`${dir === "/" ? "" : dir}/`)) continue;
      const rest = path.slice(dir === "/" ? 1 : dir.length + 1);
      const [first, ...deeper] = rest.split("/");
      if (!first) continue;
      out.set(first, deeper.length > 0 ? { name: first, dir: true } : { name: first, file });
    }
    return [...out.values()];
  }

  function isDir(path: string): boolean {
    return path === "/" || [...files.keys()].some((p) => p.startsWith(`${path}/`));
  }

  function serve(sftp: SFTPWrapper, connection: Connection): void {
    const handles = new Map<
      number,
      { kind: "dir"; path: string; sent: boolean } | { kind: "file"; path: string; sent: number; read: boolean }
    >();
    let next = 0;
    const handleFor = (value: typeof handles extends Map<number, infer V> ? V : never) => {
      const id = next++;
      handles.set(id, value);
      const handle = Buffer.alloc(4);
      handle.writeUInt32BE(id, 0);
      return handle;
    };
    const lookup = (handle: Buffer) => (handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined);
    const attrsOf = (file: FakeFile) => ({
      mode: 0o100640,
      uid: 1000,
      gid: 1000,
      size: file.content.length,
      atime: file.mtimeSeconds,
      mtime: file.mtimeSeconds,
    });
    const dirAttrs = { mode: 0o040755, uid: 1000, gid: 1000, size: 4096, atime: 0, mtime: 0 };
    const normal = (path: string) => posix.normalize(posix.isAbsolute(path) ? path : `/home/${username}/${path}`);

    sftp.on("REALPATH", (id, path) => {
      requests.push(`REALPATH ${path}`);
      sftp.name(id, [{ filename: normal(path), longname: "", attrs: dirAttrs }]);
    });
    sftp.on("OPENDIR", (id, raw) => {
      const path = normal(raw);
      requests.push(`OPENDIR ${path}`);
      if (forbidden.has(path)) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED, "Permission denied");
      if (!isDir(path) && !forbidden.has(path)) {
        return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, "No such file");
      }
      sftp.handle(id, handleFor({ kind: "dir", path, sent: false }));
    });
    sftp.on("READDIR", (id, handle) => {
      const open = lookup(handle);
      if (open?.kind !== "dir") return sftp.status(id, STATUS_CODE.FAILURE);
      if (open.sent) return sftp.status(id, STATUS_CODE.EOF);
      open.sent = true;
      const list = entriesOf(open.path).map((e) =>
        e.file
          ? {
              filename: e.name,
              longname: longName(e.name, e.file.content.length, e.file.mtimeSeconds, false),
              attrs: attrsOf(e.file),
            }
          : { filename: e.name, longname: longName(e.name, 4096, 0, true), attrs: dirAttrs },
      );
      sftp.name(id, list);
    });
    const stat = (type: string) => (id: number, raw: string) => {
      const path = normal(raw);
      requests.push(`${type} ${path}`);
      const file = files.get(path);
      if (file) {
        if (file.growsBy !== undefined && file.growthsLeft > 0) {
          file.growthsLeft -= 1;
          file.content = Buffer.concat([file.content, Buffer.from(file.growsBy)]);
          file.mtimeSeconds += 1;
        }
        return sftp.attrs(id, attrsOf(file));
      }
      if (isDir(path)) return sftp.attrs(id, dirAttrs);
      sftp.status(id, STATUS_CODE.NO_SUCH_FILE, "No such file");
    };
    sftp.on("STAT", stat("STAT"));
    sftp.on("LSTAT", stat("LSTAT"));
    sftp.on("OPEN", (id, raw, flags) => {
      const path = normal(raw);
      requests.push(`OPEN ${path}`);
      if (flags & utils.sftp.OPEN_MODE.WRITE) return sftp.status(id, STATUS_CODE.PERMISSION_DENIED);
      if (!files.has(path)) return sftp.status(id, STATUS_CODE.NO_SUCH_FILE, "No such file");
      sftp.handle(id, handleFor({ kind: "file", path, sent: 0, read: false }));
    });
    sftp.on("FSTAT", (id, handle) => {
      const open = lookup(handle);
      const file = open && files.get(open.path);
      if (!file) return sftp.status(id, STATUS_CODE.FAILURE);
      sftp.attrs(id, attrsOf(file));
    });
    sftp.on("READ", (id, handle, offset, length) => {
      const open = lookup(handle);
      const file = open?.kind === "file" ? files.get(open.path) : undefined;
      if (open?.kind !== "file" || !file) return sftp.status(id, STATUS_CODE.FAILURE);
      if (!open.read) {
        open.read = true;
        requests.push(`READ ${open.path}`);
      }
      if (file.stallAfter !== undefined && offset >= file.stallAfter) return; // never answered
      if (file.cutAfter !== undefined && file.cutsLeft > 0 && offset + length > file.cutAfter) {
        const part = file.content.subarray(offset, Math.max(offset, file.cutAfter));
        file.cutsLeft -= 1;
        if (part.length > 0) sftp.data(id, part);
        // The connection goes away mid-transfer, as a network cut or a server restart does.
        setImmediate(() => connection.end());
        return;
      }
      if (offset >= file.content.length) return sftp.status(id, STATUS_CODE.EOF);
      sftp.data(id, file.content.subarray(offset, offset + length));
    });
    sftp.on("CLOSE", (id, handle) => {
      if (handle.length === 4) handles.delete(handle.readUInt32BE(0));
      sftp.status(id, STATUS_CODE.OK);
    });
    for (const request of ["WRITE", "REMOVE", "RMDIR", "MKDIR", "RENAME", "SETSTAT", "FSETSTAT"] as const) {
      sftp.on(request, (id: number) => sftp.status(id, STATUS_CODE.OP_UNSUPPORTED));
    }
  }

  const server = new Server({ hostKeys: [host.privateKey] }, (connection) => {
    accepted += 1;
    live.add(connection);
    connection.on("authentication", authenticate);
    connection.on("ready", () => {
      connection.on("session", (accept) => {
        const session = accept();
        session.on("sftp", (acceptSftp) => serve(acceptSftp(), connection));
      });
    });
    connection.on("error", () => {});
    connection.on("close", () => live.delete(connection));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the SFTP fake has no port");

  return {
    port: address.port,
    username,
    hostKey: host.fingerprint,
    clientPrivateKey: client.privateKey,
    auth,
    requests,
    connections: () => accepted,
    put(path, content, fileOptions = {}) {
      const mtime = fileOptions.mtime ?? new Date();
      files.set(posix.normalize(path), {
        ...fileOptions,
        content: Buffer.from(content),
        mtimeSeconds: Math.floor(mtime.getTime() / 1000),
        cutsLeft: fileOptions.cutAfter === undefined ? 0 : (fileOptions.cuts ?? Number.POSITIVE_INFINITY),
        growthsLeft: fileOptions.growsBy === undefined ? 0 : (fileOptions.growths ?? Number.POSITIVE_INFINITY),
      });
    },
    remove(path) {
      files.delete(posix.normalize(path));
    },
    forbid(dir) {
      forbidden.add(posix.normalize(dir));
    },
    async close() {
      for (const connection of live) connection.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
