/** A failed call to the service: when (epoch ms), and why in words. */
export interface ApiFailure {
  readonly at: number;
  readonly reason: string;
}

/** What the ops server knows about the daemon's health, updated by the jobs as they run. */
export interface HealthSignals {
  /** Why the state store fails, in words; absent while it works. */
  readonly storeProblem?: string | undefined;
  /** Last time a call to the service succeeded (any job). */
  readonly lastApiSuccessAt?: number | undefined;
  /** Last failure of a call to the service. */
  readonly lastApiFailure?: ApiFailure | undefined;
  /** Set when an operator must act (revoked key, read-only key, inactive subscription): retrying cannot help. */
  readonly quarantine?: string | undefined;
  /**
   * Things an operator must look at that leave the daemon working (a mass-archive guard holding
   * archives, a stale export, a read-only key with reconciliation on): by topic, shown by /readyz
   * as "needs operator" notes without making it not ready, until the topic's job clears them.
   */
  readonly operatorNotes?: ReadonlyMap<string, string> | undefined;
  readonly startedAt: number;
  /** Epoch ms until which the shared API request budget is paused by a per-minute 429 (0 or absent: not paused). */
  readonly budgetPausedUntil?: number | undefined;
  /** Replicas on a shared store: whether this one leads (runs the jobs) or stands by. */
  readonly role?: "leader" | "standby" | undefined;
  /**
   * Replicas: why the leader lock's database is not known to answer (not tried yet, the last
   * attempt failed or ran out of time, the session holding it was lost); undefined once an attempt
   * answered. Nobody may be leading meanwhile, so a standby is not ready to stand by.
   */
  readonly leaderLockProblem?: string | undefined;
  /**
   * Listeners the daemon serves that are not accepting connections yet (the webhook receiver):
   * a delivery sent on the strength of a 200 must not be refused.
   */
  readonly listenersStarting?: readonly string[] | undefined;
}

export interface Readiness {
  readonly ready: boolean;
  readonly reason: string;
  readonly role?: "leader" | "standby" | undefined;
  /** "needs operator" notes (absent when there are none). */
  readonly notes?: readonly string[];
}

/**
 * Ready means: the store works, the service answered recently (or the daemon is still in its
 * start-up grace), nothing needs an operator, and the request budget is not paused by a 429. Pure so the rules are testable without a server.
 */
export function evaluateReadiness(signals: HealthSignals, now: number, staleAfterMs: number): Readiness {
  const readiness = evaluate(signals, now, staleAfterMs);
  const notes = [...(signals.operatorNotes?.values() ?? [])];
  return {
    ...readiness,
    ...(signals.role ? { role: signals.role } : {}),
    ...(notes.length > 0 ? { notes } : {}),
  };
}

function evaluate(signals: HealthSignals, now: number, staleAfterMs: number): Readiness {
  const starting = signals.listenersStarting ?? [];
  if (starting.length > 0) {
    const verb = starting.length === 1 ? "is" : "are";
    return { ready: false, reason: `starting: ${starting.join(" and ")} ${verb} not listening yet` };
  }
  if (signals.storeProblem !== undefined)
    return { ready: false, reason: `state store unavailable: ${signals.storeProblem}` };
  if (signals.leaderLockProblem !== undefined) return { ready: false, reason: signals.leaderLockProblem };
  // A standby calls nothing: it is ready to take over (and to accept webhooks) while the store works
  // and its last attempt at the leader lock answered (another replica holds it).
  if (signals.role === "standby") return { ready: true, reason: "standby: another replica leads" };
  if (signals.quarantine) return { ready: false, reason: `needs operator action: ${signals.quarantine}` };
  const pausedUntil = signals.budgetPausedUntil ?? 0;
  if (pausedUntil > now) {
    const seconds = Math.ceil((pausedUntil - now) / 1000);
    return {
      ready: false,
      reason: `API request budget paused for ${seconds} s more (the service answered 429, per-minute limit): no polling until then`,
    };
  }
  const lastSuccess = signals.lastApiSuccessAt;
  const lastFailure = signals.lastApiFailure;
  if (lastFailure !== undefined && (lastSuccess === undefined || lastFailure.at > lastSuccess)) {
    return { ready: false, reason: `service unreachable or failing: ${lastFailure.reason}` };
  }
  if (lastSuccess === undefined) {
    return now - signals.startedAt <= staleAfterMs
      ? { ready: true, reason: "starting" }
      : { ready: false, reason: "no successful call to the service since start" };
  }
  if (now - lastSuccess > staleAfterMs) {
    return {
      ready: false,
      reason: `no successful call to the service for ${Math.round((now - lastSuccess) / 1000)} s`,
    };
  }
  return { ready: true, reason: "ok" };
}
