import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../../config/schema.js";
import { BambooHrSource } from "./bamboohr-source.js";
import type { PullSeams } from "./http-pull.js";
import { HttpsSource } from "./https-source.js";
import { MergeSource } from "./merge-source.js";
import { PullStore } from "./pull-store.js";
import type { RosterSource } from "./roster-source.js";
import { SftpSource } from "./sftp-source.js";
import { sourceSecrets } from "./source-secrets.js";

export interface SourceContext {
  readonly env: NodeJS.ProcessEnv;
  /** Where complete pulls are kept: `pullDirFor(config)`. */
  readonly pullDir: string;
  /** Retry waits and clocks of the HTTP sources (tests make waits instant). */
  readonly http?: PullSeams;
  readonly now?: () => Date;
}

/**
 * Beside the SQLite state database (`roster-pulls/`, owner-only), so that a container keeps them
 * on its volume; with Postgres state, in the temporary folder (a replica that takes over pulls
 * again without validators).
 */
export function pullDirFor(config: Pick<Config, "state">): string {
  if (config.state.url) return join(tmpdir(), "retention-sync-roster-pulls");
  return join(dirname(resolve(config.state.path)), "roster-pulls");
}

/** The configured pull source, or undefined for `roster.source.type: file`. */
export function rosterSource(config: Config["roster"]["source"], context: SourceContext): RosterSource | undefined {
  const store = new PullStore(context.pullDir);
  const secrets = sourceSecrets(config, context.env);
  const http = context.http ?? {};
  const now = context.now ?? (() => new Date());
  switch (config.type) {
    case "file":
      return undefined;
    case "https":
      return new HttpsSource(config, secrets, store, http, now);
    case "bamboohr":
      return new BambooHrSource(config, secrets, store, http, now);
    case "merge":
      return new MergeSource(config, secrets, store, http, now);
    case "sftp":
      return new SftpSource(config, secrets, store, http, now);
  }
}
