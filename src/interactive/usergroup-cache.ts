import type { Logger } from "../logger.js";

export const USERGROUP_TTL_MS = 5 * 60_000;

/**
 * Members of the user groups named in the access rules, read with usergroups.users.list and kept
 * five minutes (a press should not wait for Slack each time; a removal counts within minutes).
 * A group that cannot be read keeps its last members read, or lets nobody in when it was never read,
 * and says so in the log.
 */
export class UsergroupCache {
  private readonly cached = new Map<string, { members: readonly string[]; at: number }>();

  constructor(
    private readonly read: (usergroup: string) => Promise<string[]>,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = USERGROUP_TTL_MS,
  ) {}

  async members(groups: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    for (const group of groups) {
      const hit = this.cached.get(group);
      if (hit && this.now() - hit.at < this.ttlMs) {
        out.set(group, hit.members);
        continue;
      }
      try {
        const members = await this.read(group);
        this.cached.set(group, { members, at: this.now() });
        out.set(group, members);
      } catch (error) {
        this.logger.warn(
          { err: error, usergroup: group },
          "could not read a user group's members (usergroups.users.list, scope usergroups:read): its last known members count, if any",
        );
        if (hit) out.set(group, hit.members);
      }
    }
    return out;
  }
}
