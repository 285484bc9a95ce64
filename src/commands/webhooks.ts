import { z } from "zod";
import type { RetentionClient } from "../api/client.js";
import type { WebhookInput } from "../api/request-types.js";
import { openRuntime } from "../app/runtime.js";
import { loadConfig } from "../config/load-config.js";
import type { Config } from "../config/schema.js";
import { EXIT_OK, type ExitCode, UsageError } from "../errors.js";
import { CONFIG_FLAG, type CommandIO, parseSubcommandFlags, writeLine } from "./command-io.js";
import { registeredNotes } from "./receiver-endpoints.js";
import { explainWebhookFailure } from "./webhook-failures.js";
import {
  endpointLines,
  listText,
  registeredText,
  SECRET_CONFIG_KEY,
  SECRET_ENV,
  withoutSecret,
} from "./webhook-text.js";
import { registrationUrlProblem } from "./webhook-url.js";

/**
 * `retention-sync webhooks register|list|enable|disable|delete`: the service's webhook endpoints
 * (spec 4.6). Each subcommand is one request; its failure is restated with the fix
 * (webhook-failures.ts). The signing secret of `register` goes to stdout only, never to a log.
 */

const SUBCOMMANDS = ["register", "list", "enable", "disable", "delete"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

const JSON_FLAG = { json: { type: "boolean" } } as const;
const FLAGS = {
  register: {
    ...CONFIG_FLAG,
    ...JSON_FLAG,
    url: { type: "string" },
    description: { type: "string" },
    "no-employee-warnings": { type: "boolean" },
    "no-poaching-opportunities": { type: "boolean" },
    "employee-sensitivity": { type: "string" },
    "poaching-sensitivity": { type: "string" },
  },
  list: { ...CONFIG_FLAG, ...JSON_FLAG },
  enable: { ...CONFIG_FLAG, ...JSON_FLAG },
  disable: { ...CONFIG_FLAG, ...JSON_FLAG },
  delete: { ...CONFIG_FLAG, ...JSON_FLAG, yes: { type: "boolean" } },
} as const;

/** A sensitivity level as typed on the command line (spec 6.2: 1 critical only .. 5 every signal). */
const levelFlag = z
  .string()
  .regex(/^[1-5]$/, "expected a level 1..5 (1: risk 0.90 and up, 3: 0.50, the default, 5: 0.20)")
  .transform(Number);

/** The subcommand's name and the arguments around it (`webhooks --config x list` works too). */
function splitSubcommand(argv: readonly string[]): { name: Subcommand; args: string[] } {
  const args = [...argv];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--config" || arg === "-c") i++;
    else if (!arg.startsWith("-")) {
      if (!(SUBCOMMANDS as readonly string[]).includes(arg)) break;
      args.splice(i, 1);
      return { name: arg as Subcommand, args };
    }
  }
  throw new UsageError(
    `webhooks: expected one of ${SUBCOMMANDS.join(", ")}, e.g. "retention-sync webhooks list". Run "retention-sync webhooks --help".`,
  );
}

function level(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = levelFlag.safeParse(value);
  if (!parsed.success)
    throw new UsageError(`webhooks register: --${flag} "${value}": ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** The one endpoint id an id-taking subcommand needs. */
function endpointId(name: Subcommand, positionals: readonly string[]): string {
  const [id, ...extra] = positionals;
  if (id === undefined || id.trim() === "" || extra.length > 0) {
    throw new UsageError(
      `webhooks ${name}: give exactly one endpoint id, e.g. "retention-sync webhooks ${name} whe_123" (webhooks list shows them)`,
    );
  }
  return id.trim();
}

async function withClient<T>(config: Config, io: CommandIO, act: (client: RetentionClient) => Promise<T>): Promise<T> {
  // One retry at most: an operator at a terminal would rather see the failure than wait it out.
  const runtime = await openRuntime(config, io, { client: true, clientOptions: { maxRetries: 1 } });
  try {
    return await act(runtime.client);
  } finally {
    await runtime.close();
  }
}

function printJson(io: CommandIO, value: unknown): void {
  writeLine(io.stdout, JSON.stringify(value, null, 2));
}

function loadFor(io: CommandIO, file: string | undefined): Config {
  return loadConfig({ ...(file !== undefined ? { file } : {}), env: io.env });
}

/** Runs one subcommand's request, restating its failure with the fix. */
async function explained<T>(config: Config, name: Subcommand, id: string | undefined, act: () => Promise<T>) {
  try {
    return await act();
  } catch (error) {
    throw explainWebhookFailure(error, { name, id, apiUrl: config.api.url ?? "the service" });
  }
}

function noPositionals(name: Subcommand, positionals: readonly string[]): void {
  if (positionals.length > 0) {
    throw new UsageError(
      `webhooks ${name}: unexpected argument "${positionals[0]}". Run "retention-sync webhooks --help".`,
    );
  }
}

async function register(io: CommandIO, args: readonly string[]): Promise<ExitCode> {
  const { values, positionals } = parseSubcommandFlags("webhooks register", args, FLAGS.register);
  noPositionals("register", positionals);
  const config = loadFor(io, values.config);
  const url = values.url ?? config.alerts.webhook.publicUrl;
  if (url === undefined) {
    throw new UsageError(
      "webhooks register: --url is required: the public HTTPS URL the service delivers to, e.g. " +
        "--url https://hooks.example.com/webhooks/retention (or set alerts.webhook.publicUrl)",
    );
  }
  const problem = registrationUrlProblem(url, config.api.url ?? "");
  if (problem) throw new UsageError(`webhooks register: ${problem}`);
  if (values["no-employee-warnings"] && values["no-poaching-opportunities"]) {
    throw new UsageError(
      "webhooks register: with both lenses off the endpoint would receive nothing; drop one --no-... flag",
    );
  }
  // Absent flags stay undefined, which the request body leaves out: the service's defaults apply.
  const input: WebhookInput = {
    url,
    description: values.description,
    employeeWarnings: values["no-employee-warnings"] ? false : undefined,
    poachingOpportunities: values["no-poaching-opportunities"] ? false : undefined,
    employeeWarningSensitivity: level("employee-sensitivity", values["employee-sensitivity"]),
    poachingOpportunitySensitivity: level("poaching-sensitivity", values["poaching-sensitivity"]),
  };
  const created = await explained(config, "register", undefined, () =>
    withClient(config, io, (client) => client.addWebhook(input)),
  );
  const notes = registeredNotes(config, url);
  if (!values.json) {
    io.stdout.write(registeredText(created, notes));
    return EXIT_OK;
  }
  printJson(io, {
    endpoint: withoutSecret(created),
    secret: created.secret ?? null,
    secretGoesTo: { env: SECRET_ENV, config: SECRET_CONFIG_KEY },
    notes,
  });
  // The warning, not the secret: stderr keeps stdout parseable.
  writeLine(io.stderr, "webhooks register: the signing secret above is shown only this once; store it now.");
  return EXIT_OK;
}

async function list(io: CommandIO, args: readonly string[]): Promise<ExitCode> {
  const { values, positionals } = parseSubcommandFlags("webhooks list", args, FLAGS.list);
  noPositionals("list", positionals);
  const config = loadFor(io, values.config);
  const endpoints = await explained(config, "list", undefined, () =>
    withClient(config, io, (client) => client.listWebhooks()),
  );
  if (values.json) printJson(io, endpoints);
  else io.stdout.write(listText(endpoints));
  return EXIT_OK;
}

async function setEnabled(io: CommandIO, args: readonly string[], enabled: boolean): Promise<ExitCode> {
  const name = enabled ? "enable" : "disable";
  const { values, positionals } = parseSubcommandFlags(`webhooks ${name}`, args, FLAGS[name]);
  const id = endpointId(name, positionals);
  const config = loadFor(io, values.config);
  const endpoint = await explained(config, name, id, () =>
    withClient(config, io, (client) => client.updateWebhook(id, { enabled })),
  );
  if (values.json) {
    printJson(io, endpoint);
    return EXIT_OK;
  }
  writeLine(
    io.stdout,
    enabled
      ? `Enabled ${id}: deliveries resume, and the service cleared its failure counter.`
      : `Disabled ${id}: deliveries stop; the record and its delivery history are kept ` +
          `("retention-sync webhooks enable ${id}" resumes them). Changes still reach Slack by polling.`,
  );
  io.stdout.write(`${endpointLines(endpoint).join("\n")}\n`);
  return EXIT_OK;
}

async function remove(io: CommandIO, args: readonly string[]): Promise<ExitCode> {
  const { values, positionals } = parseSubcommandFlags("webhooks delete", args, FLAGS.delete);
  const id = endpointId("delete", positionals);
  if (!values.yes) {
    throw new UsageError(
      `webhooks delete ${id}: deleting removes the endpoint and its delivery history at the service and cannot be ` +
        `undone, so it needs --yes: "retention-sync webhooks delete ${id} --yes". Nothing was deleted. ` +
        `To stop deliveries and keep the history: "retention-sync webhooks disable ${id}"`,
    );
  }
  const config = loadFor(io, values.config);
  await explained(config, "delete", id, () => withClient(config, io, (client) => client.deleteWebhook(id)));
  if (values.json) printJson(io, { id, deleted: true });
  else {
    writeLine(
      io.stdout,
      `Deleted ${id} and its delivery history. If its signing secret is still in ${SECRET_ENV}, remove it there.`,
    );
  }
  return EXIT_OK;
}

/** `retention-sync webhooks <subcommand>`. */
export async function run(io: CommandIO): Promise<ExitCode> {
  const { name, args } = splitSubcommand(io.argv);
  if (name === "register") return register(io, args);
  if (name === "list") return list(io, args);
  if (name === "delete") return remove(io, args);
  return setEnabled(io, args, name === "enable");
}
