import { describe, expect, it } from "vitest";
import { acquireInstanceLock } from "../../src/daemon/instance-lock.js";
import { InstanceLockedError } from "../../src/errors.js";
import { openStateStore } from "../../src/store/state-store.js";

describe("acquireInstanceLock", () => {
  it("refuses a second instance on the same state and allows it after release", async () => {
    const store = await openStateStore(":memory:");
    const ns = store.namespace("daemon.lock");
    const first = await acquireInstanceLock(ns, { host: "a", pid: 10, isAlive: () => true });
    const second = acquireInstanceLock(ns, { host: "b", pid: 20, isAlive: () => true });
    await expect(second).rejects.toBeInstanceOf(InstanceLockedError);
    await expect(second).rejects.toThrow(/pid 10 on a/);
    await first.release();
    const third = await acquireInstanceLock(ns, { host: "b", pid: 20 });
    await third.release();
    await store.close();
  });

  it("takes over an expired lease, or one whose process on this host is gone", async () => {
    const store = await openStateStore(":memory:");
    const ns = store.namespace("daemon.lock");
    let now = 0;
    await acquireInstanceLock(ns, { host: "a", pid: 10, leaseMs: 1_000, clock: () => now, isAlive: () => true });
    now = 500;
    await expect(acquireInstanceLock(ns, { host: "b", pid: 20, clock: () => now })).rejects.toBeInstanceOf(
      InstanceLockedError,
    );
    // Same host, holder process dead (crash): no need to wait for the lease.
    const revived = await acquireInstanceLock(ns, { host: "a", pid: 11, clock: () => now, isAlive: () => false });
    await revived.release();
    await acquireInstanceLock(ns, { host: "a", pid: 10, leaseMs: 1_000, clock: () => now, isAlive: () => true });
    now = 2_000;
    const afterExpiry = await acquireInstanceLock(ns, { host: "b", pid: 20, clock: () => now });
    await afterExpiry.release();
    await store.close();
  });
});

describe("acquireInstanceLock after a container restart", () => {
  it("takes over a lease of its own pid renewed before this process started, but not a live one", async () => {
    const store = await openStateStore(":memory:");
    const ns = store.namespace("daemon.lock");
    let now = 10_000;
    await acquireInstanceLock(ns, { host: "pod", pid: 1, clock: () => now, processStartedAt: 0 });
    await expect(
      acquireInstanceLock(ns, { host: "pod", pid: 1, clock: () => now, processStartedAt: 5_000 }),
    ).rejects.toBeInstanceOf(InstanceLockedError);
    now = 12_000;
    const restarted = await acquireInstanceLock(ns, {
      host: "pod",
      pid: 1,
      clock: () => now,
      processStartedAt: 11_000,
    });
    await restarted.release();
    await store.close();
  });
});
