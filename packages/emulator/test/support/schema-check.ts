/**
 * A small JSON Schema checker for the subset the OpenAPI document uses (type, required,
 * properties, items, enum, const, $ref, oneOf, allOf, minimum/maximum): enough to verify that
 * real responses match the served description, without another dependency.
 */
type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeMatches(expected: unknown, actual: string): boolean {
  const list = Array.isArray(expected) ? expected : [expected];
  return list.some((t) => t === actual || (t === "number" && actual === "integer"));
}

/** Returns the problems found (empty when the value matches). */
export function checkSchema(doc: Json, schema: unknown, value: unknown, at = "$"): string[] {
  if (!isObj(schema)) return [];
  if (typeof schema.$ref === "string") {
    let node: unknown = doc;
    for (const part of schema.$ref.replace(/^#\//, "").split("/")) node = isObj(node) ? node[part] : undefined;
    return checkSchema(doc, node, value, at);
  }
  const problems: string[] = [];
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) problems.push(...checkSchema(doc, s, value, at));
  if (Array.isArray(schema.oneOf)) {
    const fits = schema.oneOf.filter((s) => checkSchema(doc, s, value, at).length === 0).length;
    if (fits === 0) problems.push(`${at}: matches none of oneOf`);
  }
  if (schema.type !== undefined && !typeMatches(schema.type, typeOf(value))) {
    return [...problems, `${at}: expected type ${JSON.stringify(schema.type)}, got ${typeOf(value)}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: ${String(value)} not in enum`);
  if ("const" in schema && schema.const !== value) problems.push(`${at}: expected const ${String(schema.const)}`);
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${at}: below minimum`);
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${at}: above maximum`);
  }
  if (isObj(value)) {
    for (const key of Array.isArray(schema.required) ? schema.required : []) {
      if (!(String(key) in value)) problems.push(`${at}: missing required ${String(key)}`);
    }
    if (isObj(schema.properties)) {
      for (const [key, sub] of Object.entries(schema.properties)) {
        if (key in value) problems.push(...checkSchema(doc, sub, value[key], `${at}.${key}`));
      }
    }
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => {
      problems.push(...checkSchema(doc, schema.items, item, `${at}[${i}]`));
    });
  }
  return problems;
}

/** The schema of an operation's response for a status (falls back to the component response). */
export function responseSchema(doc: Json, method: string, template: string, status: number): unknown {
  const paths = isObj(doc.paths) ? doc.paths : {};
  const op = isObj(paths[template]) ? (paths[template] as Json)[method.toLowerCase()] : undefined;
  const responses = isObj(op) && isObj(op.responses) ? op.responses : {};
  let response: unknown = responses[String(status)];
  if (isObj(response) && typeof response.$ref === "string") {
    let node: unknown = doc;
    for (const part of response.$ref.replace(/^#\//, "").split("/")) node = isObj(node) ? node[part] : undefined;
    response = node;
  }
  if (!isObj(response) || !isObj(response.content)) return undefined;
  const media = response.content["application/json"];
  return isObj(media) ? media.schema : undefined;
}
