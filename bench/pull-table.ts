import { meetsPullTarget, PULL_TARGET_BASE, type PullRun } from "./pull-scenario.js";
import { fmt, sec, table, verdict } from "./table-format.js";

const spread = (values: readonly number[], digits: number, unit: string): string =>
  values.length < 2 ? "" : `${fmt(Math.min(...values), digits)}-${fmt(Math.max(...values), digits)}${unit}`;

/** The pull section's table: per source, medians, ratios to the CSV file source and the verdict. */
export function pullTable(run: PullRun, load: string): string {
  const head = [
    "source",
    "CPU user+sys",
    "range",
    "of it pull",
    "peak RSS",
    "range",
    "at pull end",
    "CPU ratio",
    "RSS ratio",
    "to own file",
    "pull wall",
    "requests",
    "fake CPU",
    "export read",
    "target <= 2x (of)",
  ];
  const rows = run.variants.map((v) => {
    const pull = v.kind === "pull";
    const first = v.runs[0];
    return [
      v.name,
      sec(v.cpuMs),
      spread(
        v.runs.map((m) => (m.cpuUserMs + m.cpuSystemMs) / 1000),
        2,
        " s",
      ),
      pull ? sec(v.pullCpuMs) : "",
      `${fmt(v.peakRssMb)} MB`,
      spread(
        v.runs.map((m) => m.peakRssMb),
        0,
        " MB",
      ),
      pull && first ? `${fmt(Math.max(...v.runs.map((m) => m.peakAfterPullMb)))} MB` : "",
      fmt(v.cpuRatio, 2),
      fmt(v.rssRatio, 2),
      v.ownFileCpuRatio !== undefined && v.ownFileRssRatio !== undefined
        ? `${fmt(v.ownFileCpuRatio, 2)}, ${fmt(v.ownFileRssRatio, 2)}`
        : "",
      pull ? sec(Math.min(...v.runs.map((m) => m.pullWallMs))) : "",
      pull ? fmt(Math.max(...v.fakeRequests)) : "",
      pull ? sec(Math.min(...v.fakeCpuMs)) : "",
      first ? `${first.format}, ${first.mapping}, ${fmt(first.exportBytes / 1_000_000, 1)} MB` : "",
      pull && v.source ? `${verdict(meetsPullTarget(v))} (${PULL_TARGET_BASE[v.source]})` : "",
    ];
  });
  const facts = run.variants
    .filter((v) => v.kind === "pull")
    .map((v) => `${v.source}: ${JSON.stringify(v.runs[0]?.facts ?? {})}`)
    .join("\n  ");
  return (
    table(
      `Pull + read + diff + plan, ${fmt(run.shape.size)} people, medians of ${run.runs} run(s)${run.mergePageDelayMs > 0 ? `, Merge's pages answered ${run.mergePageDelayMs} ms late` : ""}, each a child process${run.pinnedToOneCore ? " pinned to one core" : ""}${load}`,
      head,
      rows,
    ) +
    "  Ratios are to the CSV file source; 'to own file': CPU and RSS ratios to the pull's own JSON read as a file (what\n" +
    "  pulling adds). The target is judged against the base named beside it. The fakes serve from the bench process:\n" +
    "  their CPU ('fake CPU', fastest run) is not in the figures.\n" +
    `  Same plan from every source: ${run.samePlan ? "yes" : "NO"}.\n  ${facts}\n`
  );
}
