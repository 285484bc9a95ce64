import {
  CHANGE_TYPES as EMULATOR_CHANGE_TYPES,
  SERVICE_ERROR_CODES as EMULATOR_ERROR_CODES,
} from "@retention-sync/emulator";
import { describe, expect, it } from "vitest";
import { CHANGE_TYPES } from "../../src/api/change-types.js";
import { SERVICE_ERROR_CODES } from "../../src/errors.js";

/** The emulator package keeps its own copies of the spec's lists (it depends on nothing of the daemon). */
describe("the emulator package's copies of the spec's constants", () => {
  it("has the daemon's change types (spec 2.5), in the same order", () => {
    expect([...EMULATOR_CHANGE_TYPES]).toEqual([...CHANGE_TYPES]);
  });

  it("has the daemon's service error codes (spec 2.1, 7), in the same order", () => {
    expect([...EMULATOR_ERROR_CODES]).toEqual([...SERVICE_ERROR_CODES]);
  });
});
