import {
  ApiError,
  AuthenticationError,
  EXIT_USAGE,
  PaymentRequiredError,
  PermissionError,
  RetentionSyncError,
  ServiceUrlError,
} from "../errors.js";
import { evaluateReadiness, type HealthSignals, type Readiness } from "./readiness.js";

/** Collects the health signals the jobs report and answers readiness from them. */
export class HealthMonitor {
  private signals: HealthSignals;
  private budgetPausedUntil: () => number = () => 0;

  constructor(
    private readonly staleAfterMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.signals = { startedAt: clock() };
  }

  apiSucceeded(): void {
    this.signals = { ...this.signals, lastApiSuccessAt: this.clock(), quarantine: undefined };
  }

  /** A failed job: errors an operator must fix quarantine the daemon until a later call succeeds. */
  apiFailed(error: unknown): void {
    // A configuration or roster file error is not the service failing (the job notes it itself).
    if (notAboutTheService(error)) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.signals = {
      ...this.signals,
      lastApiFailure: { at: this.clock(), reason },
      quarantine: needsOperator(error) ? reason : this.signals.quarantine,
    };
  }

  storeFailed(error: unknown): void {
    this.signals = { ...this.signals, storeProblem: error instanceof Error ? error.message : String(error) };
  }

  /** Replicas: leading (the service's answers count again, from now) or standing by. */
  setRole(role: "leader" | "standby"): void {
    const leading = role === "leader" && this.signals.role !== "leader";
    this.signals = { ...this.signals, role, ...(leading ? { startedAt: this.clock() } : {}) };
  }

  /**
   * Replicas: the leader lock's database is not known to answer (`problem`, the /readyz reason),
   * until `leaderLockAnswered`; the daemon is not ready meanwhile, whatever its role.
   */
  leaderLockUnknown(problem: string): void {
    this.signals = { ...this.signals, leaderLockProblem: problem };
  }

  /** Replicas: an attempt at the leader lock was answered (won or held by another replica). */
  leaderLockAnswered(): void {
    this.signals = { ...this.signals, leaderLockProblem: undefined };
  }

  /** A listener (the webhook receiver) is being started: not ready until `listening(name)`. */
  listenerStarting(name: string): void {
    const starting = new Set(this.signals.listenersStarting ?? []).add(name);
    this.signals = { ...this.signals, listenersStarting: [...starting] };
  }

  /** The listener accepts connections (its `listen` completed). */
  listening(name: string): void {
    const starting = (this.signals.listenersStarting ?? []).filter((n) => n !== name);
    this.signals = { ...this.signals, listenersStarting: starting };
  }

  storeRecovered(): void {
    this.signals = { ...this.signals, storeProblem: undefined };
  }

  /** Where readiness reads the pause of the shared request budget (`RateLimiter.pausedUntilMs`). */
  watchRateBudget(pausedUntil: () => number): void {
    this.budgetPausedUntil = pausedUntil;
  }

  /** Sets (or, with undefined, clears) the "needs operator" note of a topic: /readyz shows it, ready or not. */
  needsOperator(topic: string, note: string | undefined): void {
    const notes = new Map(this.signals.operatorNotes ?? []);
    if (note === undefined) notes.delete(topic);
    else notes.set(topic, `needs operator: ${note}`);
    this.signals = { ...this.signals, operatorNotes: notes };
  }

  /** Whether a "needs operator" note is set for any topic that starts with `prefix`. */
  hasNotes(prefix: string): boolean {
    return [...(this.signals.operatorNotes?.keys() ?? [])].some((topic) => topic.startsWith(prefix));
  }

  /** An informational line on /readyz (the Slack Socket Mode state) that never changes readiness; undefined clears it. */
  statusNote(topic: string, note: string | undefined): void {
    const notes = new Map(this.signals.operatorNotes ?? []);
    if (note === undefined) notes.delete(topic);
    else notes.set(topic, note);
    this.signals = { ...this.signals, operatorNotes: notes };
  }

  readiness(): Readiness {
    return evaluateReadiness(
      { ...this.signals, budgetPausedUntil: this.budgetPausedUntil() },
      this.clock(),
      this.staleAfterMs,
    );
  }
}

function notAboutTheService(error: unknown): boolean {
  return error instanceof RetentionSyncError && !(error instanceof ApiError) && error.exitCode === EXIT_USAGE;
}

function needsOperator(error: unknown): boolean {
  if (error instanceof AuthenticationError || error instanceof PermissionError) return true;
  // A base URL without /api/v1: every call fails the same way until the setting changes.
  if (error instanceof ServiceUrlError) return true;
  return error instanceof PaymentRequiredError && error.code === "SUBSCRIPTION_INACTIVE";
}
