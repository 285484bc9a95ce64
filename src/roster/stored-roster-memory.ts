import { z } from "zod";
import { EMPTY_MEMORY, type RosterMemory } from "./diff-roster.js";
import type { RowIdentity } from "./row-identity.js";

/**
 * The roster memory as the state store keeps it (namespace `roster.memory`, key `state`).
 *
 * Version 2 holds lists of entries: for 100,000 people they parse and serialize several times
 * faster than objects with 100,000 keys. Version 1 (no `version`, objects keyed by profile URL) is
 * what releases before it wrote, and is still read. An older release reading version 2 finds no
 * URL it knows: it counts nobody as seen or missing, so it archives no one it should not.
 */
const identitySchema = z.object({ employeeId: z.string().min(1).optional(), email: z.string().min(1).optional() });

const storedV1 = z.object({
  version: z.undefined().optional(),
  lastFingerprint: z.string().optional(),
  seen: z.record(z.string(), z.literal(true)),
  missing: z.record(z.string(), z.number().int().nonnegative()),
  archivedAt: z.record(z.string(), z.string()),
  identities: z.record(z.string(), identitySchema).optional(),
});

const storedV2 = z.object({
  version: z.literal(2),
  lastFingerprint: z.string().optional(),
  seen: z.array(z.string()),
  missing: z.array(z.tuple([z.string(), z.number().int().nonnegative()])),
  archivedAt: z.array(z.tuple([z.string(), z.string()])),
  identities: z.array(z.tuple([z.string(), identitySchema])),
});

export type StoredRosterMemory = z.infer<typeof storedV2>;

function identity(stored: z.infer<typeof identitySchema>): RowIdentity {
  const { employeeId, email } = stored;
  if (employeeId === undefined) return email === undefined ? {} : { email };
  return email === undefined ? { employeeId } : { employeeId, email };
}

function withFingerprint(lastFingerprint: string | undefined): { lastFingerprint?: string } {
  return lastFingerprint === undefined ? {} : { lastFingerprint };
}

/** The memory a stored value holds; `undefined` (nothing stored yet) is the empty memory. */
export function parseStoredMemory(
  value: unknown,
): { readonly ok: true; readonly memory: RosterMemory } | { readonly ok: false; readonly problem: string } {
  if (value === undefined) return { ok: true, memory: EMPTY_MEMORY };
  // Chosen by version rather than tried in turn, so that a problem is named at its own path.
  const isV2 = typeof value === "object" && value !== null && (value as { version?: unknown }).version === 2;
  const parsed = isV2 ? storedV2.safeParse(value) : storedV1.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(top level)";
    return { ok: false, problem: `${where}: ${issue?.message ?? "unexpected shape"}` };
  }
  const stored = parsed.data;
  if (stored.version === 2) {
    return {
      ok: true,
      memory: {
        ...withFingerprint(stored.lastFingerprint),
        seen: new Set(stored.seen),
        missing: new Map(stored.missing),
        archivedAt: new Map(stored.archivedAt),
        identities: new Map(stored.identities.map(([url, who]) => [url, identity(who)])),
      },
    };
  }
  return {
    ok: true,
    memory: {
      ...withFingerprint(stored.lastFingerprint),
      seen: new Set(Object.keys(stored.seen)),
      missing: new Map(Object.entries(stored.missing)),
      archivedAt: new Map(Object.entries(stored.archivedAt)),
      identities: new Map(Object.entries(stored.identities ?? {}).map(([url, who]) => [url, identity(who)])),
    },
  };
}

/** What the store keeps of a memory (version 2). */
export function storedMemory(memory: RosterMemory): StoredRosterMemory {
  return {
    version: 2,
    ...withFingerprint(memory.lastFingerprint),
    seen: [...memory.seen],
    missing: [...memory.missing],
    archivedAt: [...memory.archivedAt],
    identities: [...memory.identities],
  };
}
