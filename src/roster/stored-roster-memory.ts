import { z } from "zod";
import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import { EMPTY_MEMORY, type RosterMemory } from "./diff-roster.js";
import { type RowIdentity, rowIdentity } from "./row-identity.js";

/** The store namespace of the roster memory; its one key is MEMORY_KEY. */
export const MEMORY_NAMESPACE = "roster.memory";
export const MEMORY_KEY = "state";

/**
 * The roster memory as the state store keeps it (namespace MEMORY_NAMESPACE, key MEMORY_KEY).
 *
 * Version 2 holds lists, and the identities as columns: for 100,000 people they load in a
 * fraction of the time that objects with 100,000 keys (or 100,000 small objects) take to parse and
 * validate. The optional parts (`exportSeenAt`, `missingSince`, the `name` and `department` identity
 * columns) read as "not known" when absent.
 */
const storedV2 = z.object({
  version: z.literal(2),
  lastFingerprint: z.string().optional(),
  exportSeenAt: z.string().optional(),
  seen: z.array(z.string()),
  missing: z.array(z.tuple([z.string(), z.number().int().nonnegative()])),
  missingSince: z.array(z.tuple([z.string(), z.string()])).optional(),
  archivedAt: z.array(z.tuple([z.string(), z.string()])),
  /** Column by column: `employeeId[i]`, `email[i]`, ... (null when unknown) belong to `profileUrl[i]`. */
  identities: z
    .object({
      profileUrl: z.array(z.string()),
      employeeId: z.array(z.string().min(1).nullable()),
      email: z.array(z.string().min(1).nullable()),
      name: z.array(z.string().min(1).nullable()).optional(),
      department: z.array(z.string().min(1).nullable()).optional(),
    })
    .refine(
      (c) =>
        [c.employeeId, c.email, c.name ?? c.email, c.department ?? c.email].every(
          (column) => column.length === c.profileUrl.length,
        ),
      { message: "the identity columns differ in length" },
    ),
});

type StoredRosterMemory = z.infer<typeof storedV2>;

function identityColumns(identities: RosterMemory["identities"]): StoredRosterMemory["identities"] {
  const profileUrl: string[] = [];
  const employeeId: Array<string | null> = [];
  const email: Array<string | null> = [];
  const name: Array<string | null> = [];
  const department: Array<string | null> = [];
  for (const [url, who] of identities) {
    profileUrl.push(url);
    employeeId.push(who.employeeId ?? null);
    email.push(who.email ?? null);
    name.push(who.name || null);
    department.push(who.department || null);
  }
  return { profileUrl, employeeId, email, name, department };
}

function identitiesFrom(columns: StoredRosterMemory["identities"]): Map<string, RowIdentity> {
  const out = new Map<string, RowIdentity>();
  const { name, department } = columns;
  columns.profileUrl.forEach((url, i) => {
    const identity = rowIdentity(columns.employeeId[i] ?? undefined, columns.email[i] ?? undefined);
    const n = name?.[i] ?? undefined;
    const d = department?.[i] ?? undefined;
    out.set(
      url,
      n === undefined && d === undefined
        ? identity
        : { ...identity, ...(n !== undefined ? { name: n } : {}), ...(d !== undefined ? { department: d } : {}) },
    );
  });
  return out;
}

function withFingerprint(
  lastFingerprint: string | undefined,
  exportSeenAt?: string | undefined,
): { lastFingerprint?: string; exportSeenAt?: string } {
  return {
    ...(lastFingerprint === undefined ? {} : { lastFingerprint }),
    ...(exportSeenAt === undefined ? {} : { exportSeenAt }),
  };
}

/**
 * The memory a stored value holds (version 2 as JSON text). `undefined` (nothing stored yet) is
 * the empty memory.
 */
export function parseStoredMemory(
  raw: unknown,
): { readonly ok: true; readonly memory: RosterMemory } | { readonly ok: false; readonly problem: string } {
  if (raw === undefined) return { ok: true, memory: EMPTY_MEMORY };
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return { ok: false, problem: `(top level): not JSON: ${(error as Error).message}` };
    }
  }
  const parsed = storedV2.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(top level)";
    return { ok: false, problem: `${where}: ${issue?.message ?? "unexpected shape"}` };
  }
  const stored = parsed.data;
  return {
    ok: true,
    memory: {
      ...withFingerprint(stored.lastFingerprint, stored.exportSeenAt),
      seen: new Set(stored.seen),
      missing: new Map(stored.missing),
      missingSince: new Map(stored.missingSince ?? []),
      archivedAt: new Map(stored.archivedAt),
      identities: identitiesFrom(stored.identities),
    },
  };
}

/**
 * What the store keeps of a memory: version 2, as JSON text. Text, because the store's own
 * serializer walks objects value by value: for 100,000 people it took half a second, JSON.stringify
 * takes a fifth of that, and the daemon's event loop (webhooks, health checks) waits meanwhile.
 */
export function storedMemory(memory: RosterMemory): string {
  const stored: StoredRosterMemory = {
    version: 2,
    ...withFingerprint(memory.lastFingerprint, memory.exportSeenAt),
    seen: [...memory.seen],
    missing: [...memory.missing],
    missingSince: [...memory.missingSince],
    archivedAt: [...memory.archivedAt],
    identities: identityColumns(memory.identities),
  };
  return JSON.stringify(stored);
}

/**
 * The remembered roster state. One that cannot be read (a damaged or hand-edited store) is
 * replaced by an empty one, which errs on the safe side: nobody is archived for a memory that was lost.
 */
export async function loadRosterMemory(store: StateStore, logger: Logger): Promise<RosterMemory> {
  const stored = parseStoredMemory(await store.namespace(MEMORY_NAMESPACE).get<unknown>(MEMORY_KEY));
  if (stored.ok) return stored.memory;
  logger.warn(
    { component: "reconcile", namespace: MEMORY_NAMESPACE, problem: stored.problem },
    "the remembered roster state is unreadable and starts again empty: missing counts restart (archives come later, never sooner), and people on the service but not in this file count as from other sources (left alone unless roster.archiveUnknown)",
  );
  return EMPTY_MEMORY;
}

export async function saveRosterMemory(store: StateStore, memory: RosterMemory): Promise<void> {
  await store.namespace(MEMORY_NAMESPACE).set(MEMORY_KEY, storedMemory(memory));
}
