import type { SourceConfig } from "./source-secrets.js";

/** What the SFTP source's files share: its config, why a try failed, and how errors and times read. */
export type SftpConfig = Extract<SourceConfig, { type: "sftp" }>;

export const SFTP_NO_SUCH_FILE = 2;
export const SFTP_PERMISSION_DENIED = 3;

/** Why one try failed, when another try may fix it (a refused or cut connection, a timeout). */
export class TryFailed extends Error {}

/** An error as a message names it: its code, without ssh2's `level: ` prefix. */
export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.replace(/^[a-zA-Z_]+(->[a-zA-Z_]+)*: /, "");
    return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/** The SFTP status code of a failed request (2: no such file, 3: permission denied), if any. */
export function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "number" ? code : undefined;
}

/** A time as messages show it. */
export function when(ms: number): string {
  return new Date(ms).toISOString();
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
