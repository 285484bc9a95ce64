import type { BillingAccount } from "./model.js";
import type { EmulatorState } from "./state.js";

/**
 * What the wire views and the competitor roster import read of the emulator. The `Emulator` class
 * provides it; they depend on this interface, not on the class that imports them.
 */
export interface EmulatorWorld {
  readonly state: EmulatorState;
  /** `http://host:port` of the running server (links in views). */
  readonly origin: string;
  /** The company's billing account, created on first use. */
  account(companyId: number): BillingAccount;
}
