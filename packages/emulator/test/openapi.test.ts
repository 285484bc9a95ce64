import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { openApiDocument } from "../src/openapi.js";
import { openApiProblems } from "./support/openapi-lint.js";
import { checkSchema, responseSchema } from "./support/schema-check.js";
import { asArray, bootEmulator, type JsonObject, obj, profileUrl, sharedEmulator } from "./support/wire.js";

const wire = sharedEmulator({ seed: "demo", rateLimitPerMinute: 100_000 });

/** Every operation of spec part 4. */
const OPERATIONS: Array<[string, string]> = [
  ["get", "/me"],
  ["get", "/organization"],
  ["patch", "/organization"],
  ["get", "/billing"],
  ["get", "/employees"],
  ["post", "/employees"],
  ["post", "/employees/bulk"],
  ["get", "/employees/{id}"],
  ["patch", "/employees/{id}"],
  ["delete", "/employees/{id}"],
  ["get", "/employees/{id}/changes"],
  ["get", "/changes"],
  ["get", "/competitors"],
  ["post", "/competitors"],
  ["get", "/competitors/{id}"],
  ["patch", "/competitors/{id}"],
  ["delete", "/competitors/{id}"],
  ["get", "/webhooks"],
  ["post", "/webhooks"],
  ["patch", "/webhooks/{id}"],
  ["delete", "/webhooks/{id}"],
];

const RECORDS = [
  "Error",
  "OrganizationRef",
  "Me",
  "Organization",
  "RiskLevel",
  "ChangeType",
  "LatestChange",
  "Employee",
  "ChangeItem",
  "Billing",
  "Competitor",
  "WebhookEndpoint",
  "BulkAddResult",
];

async function served(): Promise<JsonObject> {
  const res = await wire().raw("GET", "/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type") ?? "").toMatch(/application\/json/);
  return res.json;
}

function operation(doc: JsonObject, method: string, path: string): JsonObject {
  return obj(obj(obj(doc.paths)[path])[method]);
}

function collectRefs(node: unknown, out: string[]): void {
  if (Array.isArray(node)) for (const v of node) collectRefs(v, out);
  else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
}

/** Paths (dotted) of every `key` under `node`, following $refs into `doc`. */
function collectKeys(node: unknown, key: string, out: string[], doc: JsonObject, at = ""): void {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) collectKeys(v, key, out, doc, `${at}[${i}]`);
  } else if (typeof node === "object" && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === key) out.push(`${at}.${k}`);
      if (k === "$ref" && typeof v === "string") collectKeys(resolve(doc, v), key, out, doc, `${at}->${v}`);
      else collectKeys(v, key, out, doc, `${at}.${k}`);
    }
  }
}

function resolve(doc: JsonObject, ref: string): unknown {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) {
    node = typeof node === "object" && node !== null ? (node as JsonObject)[part] : undefined;
  }
  return node;
}

describe("9 versioning / 4 OpenAPI description", () => {
  it("9.3 /openapi.json: OpenAPI 3.1, version 1.0.0, server /api/v1, outside /api/v1 without a key", async () => {
    const doc = await served();
    expect(doc.openapi).toBe("3.1.0");
    expect(obj(doc.info).version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: "/api/v1" }]);
  });

  it("9.3 /openapi.yaml is the same document in YAML", async () => {
    const res = await wire().raw("GET", "/openapi.yaml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type") ?? "").toMatch(/yaml/);
    expect(parseYaml(res.text)).toEqual(await served());
  });

  it("9.3 the document is structurally valid OpenAPI 3.1 (ids, path parameters, responses, refs, no 3.0 keywords)", async () => {
    const doc = await served();
    expect(openApiProblems(doc)).toEqual([]);
    // the check itself catches each kind of breakage
    const broken = JSON.parse(JSON.stringify(doc)) as JsonObject;
    const paths = obj(broken.paths);
    const getEmployee = obj(obj(paths["/employees/{id}"]).get);
    getEmployee.parameters = [];
    getEmployee.operationId = "getMe";
    delete obj(obj(getEmployee.responses)["200"]).description;
    obj(obj(obj(broken.components).schemas).Employee).nullable = true;
    obj(obj(paths["/me"]).get).responses = { "200": { $ref: "#/components/responses/Nope" } };
    broken.openapi = "3.0.3";
    expect(openApiProblems(broken)).toEqual([
      "openapi is 3.0.3",
      "paths /me get 200: response without a description",
      "paths /employees/{id} get: operationId getMe is not unique",
      "paths /employees/{id} get 200: response without a description",
      "paths /employees/{id} get: path parameter id is not declared",
      "#/paths//me/get/responses/200: $ref #/components/responses/Nope does not resolve",
      expect.stringMatching(/^#\/components\/schemas\/Employee: nullable is OpenAPI 3\.0/),
    ]);
  });

  it("4 the served document is openApiDocument()", async () => {
    expect(await served()).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("4 every endpoint of part 4 is described, with 401 and 429 responses and bearer security", async () => {
    const doc = await served();
    expect(obj(obj(doc.components).securitySchemes).bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const [method, path] of OPERATIONS) {
      const op = operation(doc, method, path);
      const responses = obj(op.responses);
      expect(Object.keys(responses), `${method} ${path}`).toEqual(expect.arrayContaining(["401", "429"]));
      if (method !== "get") expect(Object.keys(responses), `${method} ${path}`).toContain("403");
    }
  });

  it("2 every record of part 2 is a component schema; every $ref resolves", async () => {
    const doc = await served();
    const schemas = obj(obj(doc.components).schemas);
    for (const name of RECORDS) expect(schemas, name).toHaveProperty(name);
    expect(obj(obj(schemas.Error).properties).code).toMatchObject({
      enum: expect.arrayContaining(["INVALID_BODY", "EMPLOYEE_EXISTS", "SEAT_RESERVATION_BUSY"]),
    });
    const refs: string[] = [];
    collectRefs(doc, refs);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(resolve(doc, ref), ref).toBeDefined();
  });

  it("2.7 Employee.trackingStartedAt is a date-time that is never null (absent when never tracked)", async () => {
    const employee = obj(obj(obj(obj(await served()).components).schemas).Employee);
    expect(obj(employee.properties).trackingStartedAt).toMatchObject({ type: "string", format: "date-time" });
    expect(employee.required).not.toContain("trackingStartedAt");
  });

  it("4 PATCH request bodies declare no defaults: an omitted property is left as it is, never reset", async () => {
    const doc = await served();
    const patches = OPERATIONS.filter(([method]) => method === "patch");
    expect(patches.map(([, path]) => path)).toEqual([
      "/organization",
      "/employees/{id}",
      "/competitors/{id}",
      "/webhooks/{id}",
    ]);
    for (const [method, path] of patches) {
      const defaults: string[] = [];
      collectKeys(obj(operation(doc, method, path).requestBody), "default", defaults, doc);
      expect(defaults, `${method} ${path}`).toEqual([]);
    }
    // the POST that creates an endpoint keeps its documented defaults (spec 4.6)
    const post: string[] = [];
    collectKeys(obj(operation(doc, "post", "/webhooks").requestBody), "default", post, doc);
    expect(post.length).toBeGreaterThan(0);
  });

  it("6 webhook events are described under webhooks with the signature header", async () => {
    const doc = await served();
    const hooks = obj(doc.webhooks);
    for (const type of ["employee.warning", "poaching.opportunity"]) {
      const post = obj(obj(hooks[type]).post);
      const names = (post.parameters as JsonObject[]).map((p) => p.name);
      expect(names).toEqual(expect.arrayContaining(["X-Service-Event", "X-Service-Delivery", "X-Service-Signature"]));
    }
  });

  it("4 the status of real requests is one the document lists for the operation", async () => {
    const doc = await served();
    const w = wire();
    const samples: Array<[string, string, string, unknown]> = [
      ["get", "/me", "/me", undefined],
      ["get", "/employees", "/employees?pageSize=0", undefined],
      ["post", "/employees", "/employees", { networkUrl: profileUrl() }],
      ["post", "/employees", "/employees", { networkUrl: "bad" }],
      ["post", "/employees/bulk", "/employees/bulk", { networkUrls: [profileUrl(), "bad"] }],
      ["get", "/employees/{id}", "/employees/999999", undefined],
      ["get", "/changes", "/changes?since=nope", undefined],
      [
        "post",
        "/competitors",
        "/competitors",
        { companyNetworkUrl: "https://www.linkedin.com/company/a-b", name: "Z" },
      ],
      ["get", "/competitors/{id}", "/competitors/999999", undefined],
      ["patch", "/webhooks/{id}", "/webhooks/whe_missing", { enabled: true }],
      ["delete", "/webhooks/{id}", "/webhooks/whe_missing", undefined],
    ];
    for (const [method, template, path, body] of samples) {
      const res = await w.api(method.toUpperCase(), path.split("?")[0] ?? path, {
        body,
        query: Object.fromEntries(new URLSearchParams(path.split("?")[1] ?? "")),
      });
      const documented = Object.keys(obj(operation(doc, method, template).responses));
      expect(documented, `${method} ${path} -> ${res.status}`).toContain(String(res.status));
    }
  });
});

describe("4 responses match the served description", () => {
  it("4 bodies of every operation validate against the documented schema for their status", async () => {
    const doc = await served();
    const w = await bootEmulator({ seed: "demo", rateLimitPerMinute: 100_000, allowLoopbackWebhooks: true });
    try {
      const person = obj(asArray((await w.get("/employees", { query: { tracked: true, pageSize: 1 } })).json.items)[0]);
      await w.signals({ employeeId: person.id, count: 3 });
      const competitor = obj(asArray((await w.get("/competitors")).body)[0]);
      const hook = await w.post("/webhooks", { url: "https://hooks.example.com/schema" });
      const pid = String(person.id);
      const cid = String(competitor.id);
      const hid = String(hook.json.id);
      const existing = String(person.networkUrl);
      const calls: Array<[string, string, string, unknown?]> = [
        ["GET", "/me", "/me"],
        ["GET", "/organization", "/organization"],
        ["PATCH", "/organization", "/organization", { alertRiskThreshold: 0.7 }],
        ["GET", "/billing", "/billing"],
        ["GET", "/employees", "/employees"],
        ["POST", "/employees", "/employees", { networkUrl: profileUrl() }],
        ["POST", "/employees", "/employees", { networkUrl: existing }],
        ["POST", "/employees", "/employees", { networkUrl: "bad" }],
        ["POST", "/employees/bulk", "/employees/bulk", { networkUrls: [profileUrl(), existing, "bad"] }],
        ["GET", "/employees/{id}", `/employees/${pid}`],
        ["GET", "/employees/{id}/changes", `/employees/${pid}/changes`],
        ["GET", "/changes", "/changes"],
        ["GET", "/competitors", "/competitors"],
        ["GET", "/competitors/{id}", `/competitors/${cid}`],
        ["PATCH", "/competitors/{id}", `/competitors/${cid}`, { paused: true }],
        [
          "POST",
          "/competitors",
          "/competitors",
          { companyNetworkUrl: "https://www.linkedin.com/company/a-b", name: "Z" },
        ],
        ["GET", "/webhooks", "/webhooks"],
        ["PATCH", "/webhooks/{id}", `/webhooks/${hid}`, { enabled: false }],
        ["PATCH", "/employees/{id}", `/employees/${pid}`, { status: "archived" }],
        ["DELETE", "/employees/{id}", `/employees/${pid}`, undefined],
        ["DELETE", "/employees/{id}", `/employees/${pid}?permanent=true`, undefined],
        ["DELETE", "/competitors/{id}", `/competitors/${cid}`],
        ["DELETE", "/webhooks/{id}", `/webhooks/${hid}`],
        ["GET", "/employees/{id}", "/employees/999999"],
      ];
      for (const [method, template, path, body] of calls) {
        const [bare, search] = path.split("?");
        const res = await w.api(method, bare ?? path, {
          body,
          query: Object.fromEntries(new URLSearchParams(search ?? "")),
        });
        const schema = responseSchema(doc, method, template, res.status);
        expect(schema, `${method} ${path} -> ${res.status} is documented with a JSON body`).toBeDefined();
        expect(checkSchema(doc, schema, res.body), `${method} ${path} -> ${res.status}`).toEqual([]);
      }
      const created = await w.post("/webhooks", { url: "https://hooks.example.com/created" });
      expect(checkSchema(doc, responseSchema(doc, "POST", "/webhooks", 201), created.body)).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
