/** Helpers for tests about people and seats. */
import { expect } from "vitest";
import { type JsonObject, num, obj, profileUrl, type Wire } from "./wire.js";

export async function addPerson(w: Wire, body: JsonObject = {}): Promise<JsonObject> {
  const res = await w.post("/employees", { networkUrl: profileUrl(), ...body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

export async function seatsInOrganization(w: Wire): Promise<number> {
  const billing = await w.get("/billing");
  expect(billing.status).toBe(200);
  return num(obj(billing.json.seats).inThisOrganization);
}

/** Waits (on real time, briefly) until the background import of an added person is over. */
export async function waitImported(w: Wire, id: number): Promise<JsonObject> {
  for (let i = 0; i < 50; i += 1) {
    const res = await w.get(`/employees/${id}`);
    if (res.json.status !== "importing") return res.json;
    if (i === 0) await w.advanceClock(1);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`employee ${id} still importing`);
}
