import { RosterPullError } from "../../errors.js";
import type { HttpPullOptions } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import type { PulledExport, RosterSource } from "./roster-source.js";
import type { SourceConfig, SourceSecrets } from "./source-secrets.js";

type BambooHrConfig = Extract<SourceConfig, { type: "bamboohr" }>;

// Placeholder until the source is written.
export class BambooHrSource implements RosterSource {
  readonly type = "bamboohr" as const;

  constructor(
    readonly config: BambooHrConfig,
    readonly secrets: SourceSecrets,
    readonly store: PullStore,
    readonly http: Omit<HttpPullOptions, "source" | "timeoutMs" | "maxBytes"> = {},
    readonly now: () => Date = () => new Date(),
  ) {}

  async pull(): Promise<PulledExport> {
    throw new RosterPullError("bamboohr", "not available yet");
  }
}
