import type Keyv from "keyv";
import { z } from "zod";
import type { Logger } from "../logger.js";
import { LazyKvCache, openKvCache } from "../store/kv-cache.js";

export const USERGROUP_TTL_MS = 5 * 60_000;
/**
 * How long a group's last members read still count when Slack cannot be asked: a day rides out an
 * outage or a lost scope; past it a membership nobody could confirm lets nobody in, as a group never
 * read does (the cache file outlives restarts, so "until the process ends" is no bound any more).
 */
export const USERGROUP_LAST_KNOWN_MS = 24 * 60 * 60_000;

const membersSchema = z.array(z.string());

/** Keys of the cache: fresh entries live `USERGROUP_TTL_MS`, the fallback `USERGROUP_LAST_KNOWN_MS`. */
const freshKey = (group: string) => `fresh:${group}`;
const lastKey = (group: string) => `last:${group}`;

/** The keyv cache the members are kept in (`openKvCache`), with the state store's location. */
export function usergroupKvCache(stateLocation: string, logger: Logger): LazyKvCache<string[]> {
  return new LazyKvCache(() =>
    openKvCache<string[]>({ stateLocation, namespace: "slack.usergroups", ttlMs: USERGROUP_TTL_MS, logger }),
  );
}

/**
 * Members of the user groups named in the access rules, read with usergroups.users.list and kept
 * five minutes (a press should not wait for Slack each time; a removal counts within minutes).
 * A group that cannot be read keeps its last members read for a day, or lets nobody in when it was
 * never read, and says so in the log. The cache is keyv's (a file beside a SQLite state); a cache
 * that fails is a miss and a warning, never a refused press.
 */
export class UsergroupCache {
  constructor(
    private readonly read: (usergroup: string) => Promise<string[]>,
    private readonly logger: Logger,
    private readonly cache: LazyKvCache<string[]> = usergroupKvCache("memory", logger),
    private readonly ttls: { readonly freshMs: number; readonly lastKnownMs: number } = {
      freshMs: USERGROUP_TTL_MS,
      lastKnownMs: USERGROUP_LAST_KNOWN_MS,
    },
  ) {}

  async members(groups: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    if (groups.length === 0) return out;
    const keyv = await this.cache.get().catch((error: unknown) => this.cacheFailed(error));
    for (const group of groups) {
      const fresh = await this.cached(keyv, freshKey(group));
      if (fresh) {
        out.set(group, fresh);
        continue;
      }
      try {
        const members = await this.read(group);
        out.set(group, members);
        await this.keep(keyv, group, members);
      } catch (error) {
        this.logger.warn(
          { err: error, usergroup: group },
          "could not read a user group's members (usergroups.users.list, scope usergroups:read): its last known members count, if any",
        );
        const last = await this.cached(keyv, lastKey(group));
        if (last) out.set(group, last);
      }
    }
    return out;
  }

  /** Closes the cache's file (the daemon is stopping); never throws, so the rest of the stop runs. */
  async close(): Promise<void> {
    await this.cache.close().catch((error: unknown) => {
      this.logger.warn({ err: error }, "could not close the user-group cache's file");
    });
  }

  private async cached(keyv: Keyv<string[]> | undefined, key: string): Promise<string[] | undefined> {
    if (!keyv) return undefined;
    try {
      // The file outlives releases and may be damaged: what is not a list of user ids is a miss.
      const parsed = membersSchema.safeParse(await keyv.get(key));
      return parsed.success ? parsed.data : undefined;
    } catch (error) {
      return this.cacheFailed(error);
    }
  }

  private async keep(keyv: Keyv<string[]> | undefined, group: string, members: string[]): Promise<void> {
    if (!keyv) return;
    try {
      await keyv.set(freshKey(group), members, this.ttls.freshMs);
      await keyv.set(lastKey(group), members, this.ttls.lastKnownMs);
    } catch (error) {
      this.cacheFailed(error);
    }
  }

  private cacheFailed(error: unknown): undefined {
    this.logger.warn({ err: error }, "the user-group cache failed: the groups are read from Slack");
    return undefined;
  }
}
