import { resolve } from "node:path";

/**
 * Bundles a TypeScript entry into one ESM file under node_modules/.cache, so a test can run it as
 * a real child process (Node 20 cannot run TypeScript). Packages stay external.
 */
export async function bundleEntry(entry: string, name: string): Promise<string> {
  const output = resolve("node_modules/.cache/rs-test-bundles", `${name}.mjs`);
  const { build } = (await import("rolldown")) as unknown as { build(options: unknown): Promise<unknown> };
  await build({
    input: resolve(entry),
    platform: "node",
    external: (id: string) => !id.startsWith(".") && !id.startsWith("/"),
    resolve: { extensionAlias: { ".js": [".ts", ".js"] } },
    output: { file: output, format: "esm", codeSplitting: false },
    logLevel: "silent",
  });
  return output;
}
