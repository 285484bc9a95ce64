import { canonicalProfileUrl } from "../roster/canonical-profile-url.js";
import { type ActionTarget, personRef } from "./button-value.js";

/** What the formatter knows of an alert that a button needs (structurally the alert's fields). */
export interface TargetSource {
  readonly key: string;
  readonly lens: { readonly kind: "retention" | "poaching"; readonly organizationId: number };
  readonly person: {
    readonly employeeId?: number | undefined;
    readonly profileUrl?: string | undefined;
    readonly name: string;
  };
}

/** The thread key of a person (`personKey` in alerts/alert.ts computes the same). */
export function threadKeyOf(source: TargetSource): string {
  const who = source.person.employeeId ?? source.person.profileUrl ?? source.person.name;
  return `${source.lens.organizationId}:${who}`;
}

/** The button target of an alert. */
export function actionTargetOf(source: TargetSource): ActionTarget {
  const canonical = canonicalProfileUrl(source.person.profileUrl);
  return {
    lens: source.lens.kind,
    organizationId: source.lens.organizationId,
    employeeId: source.person.employeeId,
    profileUrl: canonical.ok ? canonical.url : undefined,
    personRef: personRef(threadKeyOf(source)),
    changeKey: source.key,
    name: source.person.name,
  };
}
