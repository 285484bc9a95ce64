import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { changeItemSchema } from "../../src/api/schemas.js";

const instant = fc.integer({ min: Date.parse("2020-01-01T00:00:00Z"), max: Date.parse("2030-01-01T00:00:00Z") });
const fields = fc.record({
  organizationId: fc.integer({ min: 1, max: 1_000_000 }),
  employeeId: fc.integer({ min: 1, max: 1_000_000 }),
  changeType: fc.constantFrom("title_change", "open_to_work", "employee_departed", "new_skills"),
  at: instant,
});

describe("change key without id (property)", () => {
  it("does not depend on extra fields, field order, or how the instant is written", () => {
    fc.assert(
      fc.property(
        fields,
        fc.dictionary(
          fc
            .string({ minLength: 1 })
            .filter(
              (k) =>
                !/^(id|changeId|organizationId|employeeId|changeType|type|detectedAt|detected_at|createdAt|employee|organization|person)$/.test(
                  k,
                ),
            ),
          fc.jsonValue(),
        ),
        (f, extra) => {
          const iso = new Date(f.at).toISOString();
          const a = changeItemSchema.parse({
            organizationId: f.organizationId,
            employeeId: f.employeeId,
            changeType: f.changeType,
            detectedAt: iso,
          });
          const b = changeItemSchema.parse({
            ...extra,
            detectedAt: iso.replace(".000Z", "Z"),
            changeType: f.changeType,
            employee: { id: f.employeeId },
            organizationId: f.organizationId,
          });
          expect(b.key).toBe(a.key);
        },
      ),
    );
  });

  it("differs when any identifying field differs", () => {
    fc.assert(
      fc.property(fields, fields, (f, g) => {
        fc.pre(JSON.stringify(f) !== JSON.stringify(g));
        const key = (x: typeof f) => changeItemSchema.parse({ ...x, detectedAt: new Date(x.at).toISOString() }).key;
        expect(key(f)).not.toBe(key(g));
      }),
    );
  });
});
