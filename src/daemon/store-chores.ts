import type { Logger } from "../logger.js";
import type { StateStore } from "../store/state-store.js";
import type { DaemonService } from "./daemon.js";
import type { DaemonEvents } from "./daemon-events.js";
import { DAEMON_META_NAMESPACE } from "./leader-record.js";

/**
 * The store probe: a heartbeat write every `everyMs`, so /readyz says when the store fails (and
 * when it recovers) even while no job writes, on a standby too. `status` reads the heartbeat.
 */
export function storeProbe(store: StateStore, events: DaemonEvents, logger: Logger, everyMs: number): DaemonService {
  const probe = () =>
    store
      .namespace(DAEMON_META_NAMESPACE)
      .set("heartbeat", new Date().toISOString())
      .then(() => events.emit("store-ok", {}))
      .catch((error: unknown) => {
        events.emit("store-failed", { error });
        logger.error({ err: error }, "state store write failed; the daemon reports not ready until it recovers");
      });
  return {
    name: "store probe",
    async start() {
      const timer = setInterval(() => void probe(), everyMs);
      timer.unref();
      return async () => clearInterval(timer);
    },
  };
}

/** Expiry that happens: what outlived its retention is deleted (once at start, then every `everyMs`), and the file shrinks with it. */
export function storeSweep(store: StateStore, events: DaemonEvents, logger: Logger, everyMs: number): DaemonService {
  const sweep = () =>
    store
      .sweep(Date.now())
      .then((report) => {
        events.emit("swept", { fileBytes: report.fileBytes });
        logger[report.expired > 0 ? "info" : "debug"](report, "state store swept");
      })
      .catch((error: unknown) => logger.warn({ err: error }, "state store sweep failed; it is tried again later"));
  return {
    name: "store sweep",
    async start() {
      await sweep();
      const timer = setInterval(() => void sweep(), everyMs);
      timer.unref();
      return async () => clearInterval(timer);
    },
  };
}
