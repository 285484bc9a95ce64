import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ServiceProcess, spawnService } from "./service-process.js";

const execFileAsync = promisify(execFile);
/** Debian and Ubuntu's package installs the binary under this name; upstream's tarball names it `alertmanager`. */
const CANDIDATES = ["/usr/bin/prometheus-alertmanager", "/usr/local/bin/alertmanager", "/usr/bin/alertmanager"];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(): string | undefined {
  return CANDIDATES.find(executable);
}

/**
 * The Alertmanager binary: found, or installed with apt-get (Debian's `prometheus-alertmanager`)
 * when missing. Undefined, with the reason logged, when neither works (no apt-get, not root, no
 * network): the section is then skipped.
 */
export async function alertmanagerBinary(
  log: (line: string) => void,
): Promise<{ path: string; version: string } | string> {
  let path = found();
  if (!path) {
    log("alertmanager: not installed; installing it with apt-get install prometheus-alertmanager");
    try {
      await execFileAsync("apt-get", ["update"], { maxBuffer: 16 << 20 });
      await execFileAsync("apt-get", ["install", "-y", "--no-install-recommends", "prometheus-alertmanager"], {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        maxBuffer: 16 << 20,
      });
    } catch (error) {
      return `apt-get install prometheus-alertmanager failed: ${String((error as Error).message).split("\n")[0]}`;
    }
    path = found();
    if (!path) return "apt-get installed prometheus-alertmanager but no binary was found";
  }
  const { stdout, stderr } = await execFileAsync(path, ["--version"]);
  const version = /version (\S+)/.exec(`${stdout}${stderr}`)?.[1] ?? "unknown";
  return { path, version };
}

/**
 * Alertmanager configured like the daemon: every alert its own group (`group_by: ['...']`, all
 * labels) sent at once (`group_wait: 0s`), one Slack post per alert through an incoming webhook;
 * no resolved messages, no repeats within the run. The post's text lists the alerts' `key`
 * labels, so the bench can tell which alerts reached Slack.
 */
export async function writeAlertmanagerConfig(file: string, slackWebhookUrl: string): Promise<void> {
  const config = {
    route: {
      receiver: "slack",
      group_by: ["..."],
      group_wait: "0s",
      group_interval: "5m",
      repeat_interval: "4h",
    },
    receivers: [
      {
        name: "slack",
        slack_configs: [
          {
            api_url: slackWebhookUrl,
            channel: "#hr-alerts",
            send_resolved: false,
            text: "{{ range .Alerts }}{{ .Labels.key }} {{ end }}",
          },
        ],
      },
    ],
  };
  // JSON is YAML.
  await writeFile(file, JSON.stringify(config, null, 2));
}

/** Alertmanager on 127.0.0.1:`port`, its storage in `storageDir`, clustering off (empty cluster address). */
export function spawnAlertmanager(input: {
  readonly binary: string;
  readonly configFile: string;
  readonly storageDir: string;
  readonly port: number;
  readonly logFile: string;
}): ServiceProcess {
  return spawnService({
    command: input.binary,
    args: [
      `--config.file=${input.configFile}`,
      `--storage.path=${input.storageDir}`,
      `--web.listen-address=127.0.0.1:${input.port}`,
      "--cluster.listen-address=",
      "--log.level=info",
    ],
    env: { PATH: process.env.PATH ?? "" },
    cwd: input.storageDir,
    logFile: input.logFile,
  });
}

export const alertmanagerLog = (dir: string) => join(dir, "alertmanager.log");
