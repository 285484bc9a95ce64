import { RosterPullError } from "../../errors.js";
import type { HttpPullOptions } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig, SourceSecrets } from "./source-secrets.js";

type SftpConfig = Extract<SourceConfig, { type: "sftp" }>;

// Placeholder until the source is written.
export class SftpSource implements RosterSource {
  readonly type = "sftp" as const;

  constructor(
    readonly config: SftpConfig,
    readonly secrets: SourceSecrets,
    readonly store: PullStore,
    readonly http: Omit<HttpPullOptions, "source" | "timeoutMs" | "maxBytes"> = {},
    readonly now: () => Date = () => new Date(),
  ) {}

  async pull(): Promise<PulledExport> {
    throw new RosterPullError("sftp", "not available yet");
  }
}
