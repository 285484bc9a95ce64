import type { ActionKind } from "./action-ids.js";

/** Who may press one kind of button: listed users and members of listed user groups; `open` lets anyone. */
export interface AccessRule {
  readonly allowedUsers: readonly string[];
  readonly allowedUsergroups: readonly string[];
  /** Nobody listed: anyone in the channel (acknowledge, snooze) or nobody (stop tracking). */
  readonly openWhenUnset: boolean;
  /** The config key a refusal names, so the person asking knows what an admin must set. */
  readonly configKey: string;
}

export interface AccessPolicy {
  readonly acknowledge: AccessRule;
  readonly snooze: AccessRule;
  readonly stopTracking: AccessRule;
  /** Approve of a reconcile plan held for a person (nobody until set). */
  readonly approveReconcile: AccessRule;
}

export type Authorization = { readonly allowed: true } | { readonly allowed: false; readonly message: string };

const RULE_OF: Readonly<Record<ActionKind, keyof AccessPolicy>> = {
  ack: "acknowledge",
  snooze: "snooze",
  unsnooze: "snooze",
  untrack: "stopTracking",
};

const WHAT: Readonly<Record<ActionKind, string>> = {
  ack: "acknowledge alerts",
  snooze: "snooze alerts",
  unsnooze: "snooze alerts",
  untrack: "stop tracking people",
};

/** The user groups whose members matter for this kind (looked up before `authorize`). */
export function groupsFor(kind: ActionKind, policy: AccessPolicy): readonly string[] {
  return policy[RULE_OF[kind]].allowedUsergroups;
}

/**
 * Whether `userId` may do `kind`. `members` holds the members of the rule's user groups (a group
 * that could not be read is absent: nobody gets in through it). Pure.
 */
export function authorize(
  kind: ActionKind,
  userId: string,
  policy: AccessPolicy,
  members: ReadonlyMap<string, readonly string[]>,
): Authorization {
  return authorizeRule(policy[RULE_OF[kind]], WHAT[kind], userId, members);
}

/** Whether `userId` may do what `rule` guards (`what`: "approve reconcile plans"), as `authorize`. Pure. */
export function authorizeRule(
  rule: AccessRule,
  what: string,
  userId: string,
  members: ReadonlyMap<string, readonly string[]>,
): Authorization {
  const unset = rule.allowedUsers.length === 0 && rule.allowedUsergroups.length === 0;
  if (unset && rule.openWhenUnset) return { allowed: true };
  if (rule.allowedUsers.includes(userId)) return { allowed: true };
  if (rule.allowedUsergroups.some((group) => members.get(group)?.includes(userId) === true)) return { allowed: true };
  const fix = unset
    ? `nobody may ${what} until an admin sets \`${rule.configKey}.allowedUsers\` or \`${rule.configKey}.allowedUsergroups\` in the retention-sync config`
    : `only the users and user groups in \`${rule.configKey}\` may ${what}; ask an admin to add you`;
  return { allowed: false, message: `Sorry <@${userId}>, ${fix}. Nothing was changed.` };
}
