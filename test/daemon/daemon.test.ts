import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Daemon } from "../../src/daemon/daemon.js";
import type { DaemonEventMap } from "../../src/daemon/daemon-events.js";
import { readLeader } from "../../src/daemon/leader-record.js";
import { LeaderFence, type Leadership, type Term } from "../../src/daemon/leadership.js";
import { FencedOutError } from "../../src/errors.js";
import { silentLogger } from "../../src/logger.js";
import { openStateStore, type StateStore } from "../../src/store/state-store.js";

/** A term handed out by the test: it can be lost, and tells whether it was given back. */
interface TestTerm extends Term {
  readonly lose: (reason: string) => void;
  readonly released: () => boolean;
}

function testTerm(epoch: number | undefined): TestTerm {
  const lost = new AbortController();
  let released = false;
  return {
    epoch,
    lost: lost.signal,
    lose: (reason) => lost.abort(reason),
    released: () => released,
    async release() {
      released = true;
    },
  };
}

/** Leadership whose terms the test grants one by one (replicas), or that leads at once (single). */
function grantedLeadership(mode: Leadership["mode"]) {
  const waiting: Array<(term: Term | undefined) => void> = [];
  const granted: Term[] = [];
  const leadership: Leadership = {
    mode,
    next(signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      const ready = granted.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => {
        waiting.push(resolve);
        signal.addEventListener("abort", () => resolve(undefined), { once: true });
      });
    },
  };
  return {
    leadership,
    grant(term: Term) {
      const resolve = waiting.shift();
      if (resolve) resolve(term);
      else granted.push(term);
    },
  };
}

/** A poll job that runs until its term ends, counting its passes. */
function untilAborted() {
  const passes = { started: 0 };
  return {
    passes,
    run: (signal: AbortSignal) =>
      new Promise<void>((resolve) => {
        passes.started += 1;
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      }),
  };
}

let store: StateStore;
beforeEach(async () => {
  store = await openStateStore(":memory:");
});
afterEach(async () => {
  await store.close();
});

type Seen = Array<{ name: keyof DaemonEventMap; epoch?: number | undefined }>;

function recorded(daemon: Daemon): Seen {
  const seen: Seen = [];
  for (const name of ["leading", "standing-down", "term-ended", "stopped"] as const) {
    daemon.events.on(name, (payload) => seen.push({ name, ...("epoch" in payload ? { epoch: payload.epoch } : {}) }));
  }
  return seen;
}

function next<K extends keyof DaemonEventMap>(daemon: Daemon, name: K): Promise<DaemonEventMap[K]> {
  return new Promise((resolve) => {
    const off = daemon.events.on(name, (payload) => {
      off();
      resolve(payload);
    });
  });
}

function replicaDaemon(fence = new LeaderFence()) {
  const { leadership, grant } = grantedLeadership("replicas");
  const poll = untilAborted();
  const daemon = new Daemon({
    logger: silentLogger(),
    store,
    leadership,
    fence,
    shutdownGraceMs: 1_000,
    poll: { intervalSeconds: 3_600, run: poll.run },
  });
  return { daemon, grant, poll, fence };
}

describe("Daemon.leadTerm", () => {
  it("runs the term's jobs under its epoch until the lease is lost, then gives the lead back", async () => {
    const { daemon, poll, fence } = replicaDaemon();
    const seen = recorded(daemon);
    const term = testTerm(7);
    const leading = daemon.leadTerm(term);
    expect(fence.epoch).toBe(7);
    expect(daemon.leading).toBe(true);
    expect(poll.passes.started).toBe(1);
    term.lose("the session ended");
    expect(fence.epoch).toBeUndefined();
    await expect(leading).resolves.toBe(true);
    expect(term.released()).toBe(true);
    expect(daemon.leading).toBe(false);
    expect(seen).toEqual([
      { name: "leading", epoch: 7 },
      { name: "standing-down", epoch: 7 },
      { name: "term-ended", epoch: 7 },
    ]);
    expect((await readLeader(store))?.epoch).toBe(7);
  });

  it("ends the term when a write is fenced out", async () => {
    const { daemon, fence } = replicaDaemon();
    const down = next(daemon, "standing-down");
    const leading = daemon.leadTerm(testTerm(3));
    fence.fencedOut(new FencedOutError(3, 4));
    expect((await down).epoch).toBe(3);
    await expect(leading).resolves.toBe(true);
  });
});

describe("Daemon lifecycle", () => {
  it("stops during a term: the jobs finish, the lead is given back, no stand-down", async () => {
    const { leadership, grant } = grantedLeadership("single");
    const poll = untilAborted();
    const daemon = new Daemon({
      logger: silentLogger(),
      store,
      leadership,
      shutdownGraceMs: 1_000,
      poll: { intervalSeconds: 3_600, run: poll.run },
    });
    const seen = recorded(daemon);
    const term = testTerm(undefined);
    grant(term);
    await daemon.start();
    expect(daemon.leading).toBe(true);
    await expect(daemon.stop("test")).resolves.toEqual({ clean: true });
    expect(term.released()).toBe(true);
    expect(seen.map((e) => e.name)).toEqual(["leading", "term-ended", "stopped"]);
    // A second stop is the same stop.
    await expect(daemon.stop("again")).resolves.toEqual({ clean: true });
  });

  it("stands down, then leads again with the next term's epoch", async () => {
    const { daemon, grant, fence, poll } = replicaDaemon();
    const seen = recorded(daemon);
    await daemon.start();
    expect(daemon.leading).toBe(false);
    let leading = next(daemon, "leading");
    const first = testTerm(1);
    grant(first);
    await leading;
    const ended = next(daemon, "term-ended");
    daemon.standDown("refused");
    await ended;
    expect(first.released()).toBe(true);
    expect(fence.epoch).toBeUndefined();
    leading = next(daemon, "leading");
    grant(testTerm(2));
    expect((await leading).epoch).toBe(2);
    expect(fence.epoch).toBe(2);
    expect(poll.passes.started).toBe(2);
    await daemon.stop("test");
    expect(seen).toEqual([
      { name: "leading", epoch: 1 },
      { name: "standing-down", epoch: 1 },
      { name: "term-ended", epoch: 1 },
      { name: "leading", epoch: 2 },
      { name: "term-ended", epoch: 2 },
      { name: "stopped" },
    ]);
  });

  it("does nothing on standDown while standing by", async () => {
    const { daemon } = replicaDaemon();
    const seen = recorded(daemon);
    await daemon.start();
    daemon.standDown("nothing to end");
    await daemon.stop("test");
    expect(seen.map((e) => e.name)).toEqual(["stopped"]);
  });

  it("closes the services in reverse order and releases the first term when one fails to start", async () => {
    const { leadership, grant } = grantedLeadership("single");
    const closed: string[] = [];
    const term = testTerm(undefined);
    grant(term);
    const daemon = new Daemon({
      logger: silentLogger(),
      store,
      leadership,
      shutdownGraceMs: 1_000,
      services: [
        { name: "a", start: async () => async () => void closed.push("a") },
        { name: "b", start: async () => async () => void closed.push("b") },
        {
          name: "c",
          start: async () => {
            throw new Error("no port");
          },
        },
      ],
    });
    await expect(daemon.start()).rejects.toThrow("no port");
    expect(closed).toEqual(["b", "a"]);
    expect(term.released()).toBe(true);
  });
});
