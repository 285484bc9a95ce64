import { RetentionClient } from "../../../src/api/client.js";
import type { Employee } from "../../../src/api/spec-records.js";

/** The emulator's live, tracked people, read through the API (ids change with every reset). */
export async function trackedPeople(emulator: { baseUrl: string; readKey: string }): Promise<Employee[]> {
  const people: Employee[] = [];
  const client = new RetentionClient({ baseUrl: emulator.baseUrl, apiKey: emulator.readKey });
  try {
    for await (const person of client.iterateEmployees()) {
      if (person.tracked && person.status !== "archived") people.push(person);
    }
  } finally {
    await client.close();
  }
  return people;
}
