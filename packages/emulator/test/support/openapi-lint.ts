/**
 * Structural rules of an OpenAPI 3.1 document that a JSON-schema check of the served bodies does
 * not see (no validator package is needed): the version, unique operation ids, declared path
 * parameters, response keys and descriptions, request bodies with content, resolvable $refs,
 * security schemes that exist, and no 3.0-only schema keywords (`nullable`, boolean
 * `exclusiveMinimum`/`exclusiveMaximum`). Returns one sentence per problem.
 */
type Json = Record<string, unknown>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const PARAMETER_PLACES = new Set(["query", "header", "path", "cookie"]);

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function resolve(doc: Json, node: unknown): unknown {
  if (!isObject(node) || typeof node.$ref !== "string") return node;
  let at: unknown = doc;
  for (const part of node.$ref.replace(/^#\//, "").split("/")) at = isObject(at) ? at[part] : undefined;
  return at;
}

function walk(node: unknown, visit: (value: Json, where: string) => void, where: string): void {
  if (Array.isArray(node)) {
    for (const [i, v] of node.entries()) walk(v, visit, `${where}[${i}]`);
  } else if (isObject(node)) {
    visit(node, where);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${where}/${k}`);
  }
}

function operationProblems(doc: Json, op: Json, where: string, template: string | null, ids: Set<string>): string[] {
  const out: string[] = [];
  if (typeof op.operationId === "string") {
    if (ids.has(op.operationId)) out.push(`${where}: operationId ${op.operationId} is not unique`);
    ids.add(op.operationId);
  }
  const responses = op.responses;
  if (!isObject(responses) || Object.keys(responses).length === 0) out.push(`${where}: no responses`);
  else {
    for (const [status, r] of Object.entries(responses)) {
      if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) out.push(`${where}: response key ${status}`);
      const resolved = resolve(doc, r);
      if (!isObject(resolved) || typeof resolved.description !== "string")
        out.push(`${where} ${status}: response without a description`);
    }
  }
  if (op.requestBody !== undefined) {
    const body = resolve(doc, op.requestBody);
    if (!isObject(body) || !isObject(body.content)) out.push(`${where}: requestBody without content`);
  }
  const params = Array.isArray(op.parameters) ? op.parameters.map((p) => resolve(doc, p)) : [];
  for (const p of params) {
    if (!isObject(p) || typeof p.name !== "string" || !PARAMETER_PLACES.has(String(p.in))) {
      out.push(`${where}: malformed parameter ${JSON.stringify(p)}`);
      continue;
    }
    if (p.schema === undefined && p.content === undefined) out.push(`${where}: parameter ${p.name} has no schema`);
    if (p.in === "path" && p.required !== true) out.push(`${where}: path parameter ${p.name} not required`);
    if (p.in === "path" && template !== null && !template.includes(`{${p.name}}`))
      out.push(`${where}: path parameter ${p.name} is not in the path`);
  }
  for (const name of template?.match(/\{[^}]+\}/g) ?? []) {
    const bare = name.slice(1, -1);
    if (!params.some((p) => isObject(p) && p.in === "path" && p.name === bare))
      out.push(`${where}: path parameter ${bare} is not declared`);
  }
  return out;
}

export function openApiProblems(doc: Json): string[] {
  const out: string[] = [];
  if (typeof doc.openapi !== "string" || !/^3\.1\.\d+$/.test(doc.openapi))
    out.push(`openapi is ${String(doc.openapi)}`);
  const info = doc.info;
  if (!isObject(info) || typeof info.title !== "string" || typeof info.version !== "string")
    out.push("info needs a title and a version");
  const ids = new Set<string>();
  const items: Array<[string, unknown, string | null]> = [
    ...Object.entries(isObject(doc.paths) ? doc.paths : {}).map(([path, item]): [string, unknown, string | null] => [
      `paths ${path}`,
      item,
      path,
    ]),
    ...Object.entries(isObject(doc.webhooks) ? doc.webhooks : {}).map(
      ([name, item]): [string, unknown, string | null] => [`webhooks ${name}`, item, null],
    ),
  ];
  if (!isObject(doc.paths)) out.push("paths missing");
  for (const [where, item, template] of items) {
    if (template !== null && !template.startsWith("/")) out.push(`${where}: a path must start with /`);
    if (!isObject(item)) {
      out.push(`${where}: not a path item`);
      continue;
    }
    for (const method of METHODS) {
      const op = item[method];
      if (op !== undefined) {
        out.push(
          ...(isObject(op)
            ? operationProblems(doc, op, `${where} ${method}`, template, ids)
            : [`${where} ${method}: not an object`]),
        );
      }
    }
  }
  const schemes =
    isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  walk(
    doc,
    (node, where) => {
      if (typeof node.$ref === "string" && resolve(doc, node) === undefined)
        out.push(`${where}: $ref ${node.$ref} does not resolve`);
      if (typeof node.nullable === "boolean")
        out.push(`${where}: nullable is OpenAPI 3.0; 3.1 uses type [..., "null"]`);
      for (const k of ["exclusiveMinimum", "exclusiveMaximum"]) {
        if (typeof node[k] === "boolean") out.push(`${where}: boolean ${k} is OpenAPI 3.0; 3.1 takes a number`);
      }
    },
    "#",
  );
  for (const requirement of Array.isArray(doc.security) ? doc.security : []) {
    for (const name of Object.keys(isObject(requirement) ? requirement : {})) {
      if (!(name in schemes)) out.push(`security names an unknown scheme ${name}`);
    }
  }
  return out;
}
