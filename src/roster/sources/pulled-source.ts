import type { PullSeams } from "./http-pull.js";
import type { PullStore } from "./pull-store.js";
import type { SourceSecrets } from "./source-secrets.js";

/**
 * What every pull source is built with (`open-source.ts`): its `roster.source` section, its secrets,
 * the folder its complete pulls are kept in, the test seams of its HTTP or SSH client, and a clock.
 */
export abstract class PulledSource<Config> {
  constructor(
    readonly config: Config,
    readonly secrets: SourceSecrets,
    readonly store: PullStore,
    readonly http: PullSeams = {},
    readonly now: () => Date = () => new Date(),
  ) {}
}
