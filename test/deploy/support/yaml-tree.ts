/** Walking parsed YAML and JSON (Compose, Kubernetes, Prometheus, Grafana) without casts at each step. */
export type Tree = Record<string, unknown>;

export const isTree = (value: unknown): value is Tree =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at a path of keys and indexes, or undefined when any step is missing. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let node = value;
  for (const key of path) {
    if (Array.isArray(node) && typeof key === "number") node = node[key];
    else if (isTree(node) && typeof key === "string") node = node[key];
    else return undefined;
  }
  return node;
}

export function asTree(value: unknown, what: string): Tree {
  if (!isTree(value)) throw new Error(`${what}: expected a mapping, got ${JSON.stringify(value)}`);
  return value;
}

export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export const trees = (value: unknown, what: string): Tree[] => list(value).map((v, i) => asTree(v, `${what}[${i}]`));

/** `KEY=value` lines of an env file, commented-out ones too (`# KEY=`): the variables it offers. */
export function envFileKeys(text: string): { set: Map<string, string>; offered: string[] } {
  const set = new Map<string, string>();
  const offered: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!match?.[2]) continue;
    offered.push(match[2]);
    if (match[1] === undefined) set.set(match[2], match[3] ?? "");
  }
  return { set, offered };
}
