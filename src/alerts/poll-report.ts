import type { FlushReport } from "../delivery/outbox-sender.js";
import type { ExitCode } from "../errors.js";
import type { AlertDraft } from "./plan-deliveries.js";

/** What one lens of a poll pass read. */
export interface LensReport {
  readonly lens: string;
  readonly since?: string;
  readonly minRiskScore?: number;
  fetched: number;
  fresh: number;
  duplicates: number;
  cursor?: string | undefined;
  skipped?: string;
  error?: string;
}

/** What one poll pass did: `retention-sync poll` prints it, the daemon counts it. */
export interface PollReport {
  readonly lenses: LensReport[];
  alerts: number;
  /** Alerts neither a route nor their lens's root route took: not posted. */
  unrouted: number;
  /** Of `unrouted`, those of the poaching lens (not posted by default: docs/privacy.md). */
  unroutedPoaching: number;
  /** Alerts no route took that went to the catch-all (`slack.channel`). */
  caughtAll: number;
  enqueued: number;
  /** Alerts not posted because the person is snoozed (Slack's Snooze button). */
  snoozed?: number;
  digestChannels: string[];
  /** The messages planned in this pass (what a dry run prints). */
  drafts: AlertDraft[];
  flush?: FlushReport;
  /** Set when the pass could not even list its lenses. */
  error?: string;
  /** The exit code that failure maps to: 2 for a setting to fix (a rejected key, a URL without /api/v1). */
  errorExitCode?: ExitCode;
  /** Set when shutdown cut the pass short: nothing after the abort was committed or posted. */
  stopped?: boolean;
}
