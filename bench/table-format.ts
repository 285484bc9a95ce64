/** Number and table formatting shared by the bench's report printers. */

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const sec = (ms: number): string => `${fmt(ms / 1000, 2)} s`;
export const ms = (value: number, digits = 1): string => `${fmt(value, digits)} ms`;
export const kib = (bytes: number | undefined): string => (bytes === undefined ? "n/a" : `${fmt(bytes / 1024, 1)} KiB`);
export const mib = (bytes: number): string => `${fmt(bytes / 1_048_576, 1)} MiB`;
export const verdict = (ok: boolean): string => (ok ? "pass" : "FAIL");

export function table(title: string, head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [title, line(head), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line), ""].join("\n");
}
