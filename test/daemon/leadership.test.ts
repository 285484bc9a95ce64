import { describe, expect, it } from "vitest";
import { replicaLeadership } from "../../src/daemon/leadership.js";
import { StoreError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import type { LeaderElection, LeaderTerm } from "../../src/store/state-store.js";

/** An election that answers from a script: "held" (another leads), "down" (unreachable), "won". */
function scripted(answers: Array<"held" | "down" | "won">): LeaderElection {
  return {
    async tryAcquire() {
      const answer = answers.shift();
      if (answer === "down") throw new StoreError("State store postgres://x: the leader election failed: ECONNREFUSED");
      if (answer === "won") {
        const term: LeaderTerm = { epoch: 1, lost: new AbortController().signal, release: async () => undefined };
        return term;
      }
      return undefined;
    },
  };
}

describe("replicaLeadership", () => {
  it("tries for the lock every 250 ms while another leads, and every second while the store cannot be reached", async () => {
    const waits: number[] = [];
    const events: string[] = [];
    const leadership = replicaLeadership(scripted(["held", "held", "down", "down", "held", "won"]), {
      logger: silentLogger(),
      onStoreError: () => events.push("error"),
      onAnswered: () => events.push("answered"),
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const term = await leadership.next(new AbortController().signal);
    expect(term?.epoch).toBe(1);
    expect(waits).toEqual([250, 250, 1_000, 1_000, 250]);
    expect(events).toEqual(["answered", "answered", "error", "error", "answered", "answered"]);
  });
});
