import { createWriteStream } from "node:fs";
import type { FakeSlack, FakeSlackMessage, FakeSlackOptions } from "@retention-sync/emulator";
import { LocalPressError, UsageError } from "../errors.js";
import { renderSlackMessage } from "../slack/render-slack-message.js";
import { writeLine } from "./command-io.js";
import type { EmulatorPackage } from "./load-emulator-package.js";

/**
 * The local Slack of `demo` and `sandbox`: the emulator package's fake Slack Web API, every message
 * it receives printed readably and kept in a transcript, and button presses made the way a person
 * in Slack makes them (an interactive envelope over the daemon's Socket Mode connection).
 */

/** The local Slack's user: the one who presses (the demo lets it stop tracking). */
export const PRESS_USER = "U0DEMOUSER";

const PRESS_ACTIONS = { ack: "rs_ack", snooze: "rs_snooze", unsnooze: "rs_unsnooze", untrack: "rs_untrack" } as const;
type PressVerb = keyof typeof PRESS_ACTIONS;

/** A press: the N-th alert message shown, or the message with this ts. */
export interface PressRequest {
  readonly verb: PressVerb;
  readonly nth?: number;
  readonly ts?: string;
}

/** `ack:2` (the second alert message shown) or `ack:<message ts>`. */
export function parsePress(text: string, command = "demo"): PressRequest {
  const match = /^(ack|snooze|unsnooze|untrack):(\d+(?:\.\d+)?)$/.exec(text);
  if (!match?.[1] || !match[2] || match[2] === "0") {
    throw new UsageError(
      `${command}: --press expects ACTION:N (the N-th alert message shown, from 1) or ACTION:TS (a message ts), ACTION one of ack, snooze, unsnooze, untrack; got "${text}"`,
    );
  }
  const verb = match[1] as PressVerb;
  return match[2].includes(".") ? { verb, ts: match[2] } : { verb, nth: Number(match[2]) };
}

/** The request in the words the user typed: `ack:1`. */
export const pressText = (press: PressRequest): string => `${press.verb}:${press.ts ?? String(press.nth)}`;

function snoozeOption(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as Array<{
    elements?: Array<{ action_id?: string; options?: Array<{ value?: string }> }>;
  }>) {
    const select = block.elements?.find((e) => e.action_id === PRESS_ACTIONS.snooze);
    if (select?.options?.[0]?.value) return select.options[0].value;
  }
  return undefined;
}

const hasButtons = (blocks: unknown): boolean => JSON.stringify(blocks ?? "").includes(`"${PRESS_ACTIONS.ack}"`);

/** How long a press waits for the daemon to update the message: generous, a loaded machine is slow. */
const UPDATE_WAIT_MS = 30_000;
const UPDATE_POLL_MS = 50;

export interface LocalSlackOptions {
  /** The command it serves (`demo`, `sandbox`), for its messages. */
  readonly command: string;
  /** Where the messages are printed as they arrive. */
  readonly stdout: NodeJS.WritableStream;
  /** One JSON line per message received. */
  readonly transcriptPath: string;
  /** Listen port; 0 picks a free one. */
  readonly port?: number;
  /** The bot and app-level tokens it accepts (the fake's own by default). */
  readonly token?: string;
  readonly appToken?: string;
  /** The sandbox: any channel, any email (see FakeSlackOptions.openWorkspace), and channels to list. */
  readonly openWorkspace?: { readonly knownChannels: () => Iterable<string> };
}

export interface LocalSlack {
  readonly slack: FakeSlack;
  /** Presses now, on an alert already shown; the lines it printed, for a caller in another terminal. */
  press(request: PressRequest): Promise<string[]>;
  /** Presses once the alert is shown (`demo --press` at start); settled() waits for it. */
  pressWhenShown(request: PressRequest): void;
  /** Resolves when every press asked for is done. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the local Slack on 127.0.0.1; a taken port is a usage error naming `--slack-port`. */
export async function startLocalSlack(
  pkg: Pick<EmulatorPackage, "startFakeSlack">,
  options: LocalSlackOptions,
): Promise<LocalSlack> {
  const transcript = createWriteStream(options.transcriptPath);
  const alertsShown: FakeSlackMessage[] = [];
  let waiting: { request: PressRequest; done: () => void } | undefined;
  let presses: Promise<unknown> = Promise.resolve();
  const out = (line: string) => writeLine(options.stdout, line);

  /** `#name`, `DM to person@example.com`, or the id (a channel a config named by id is known by it alone). */
  function label(message: Pick<FakeSlackMessage, "channel" | "channelName">): string {
    if (message.channelName && message.channelName !== message.channel) return `#${message.channelName}`;
    for (const [email, id] of slack.users) if (`D${id.slice(1)}` === message.channel) return `DM to ${email}`;
    return message.channel;
  }

  function onMessage(message: FakeSlackMessage): void {
    transcript.write(`${JSON.stringify(message)}\n`);
    out(renderSlackMessage({ ...message, channel: label(message) }));
    if (!hasButtons(message.blocks) || message.threadTs !== undefined) return;
    alertsShown.push(message);
    const pending = waiting;
    if (pending && find(pending.request)) {
      waiting = undefined;
      queue(pending.request, true).then(pending.done, (error: unknown) => {
        out(`could not press ${pending.request.verb}: ${error instanceof Error ? error.message : String(error)}`);
        pending.done();
      });
    }
  }

  const find = (request: PressRequest) =>
    request.ts !== undefined ? alertsShown.find((m) => m.ts === request.ts) : alertsShown[(request.nth ?? 1) - 1];

  /** One press at a time: each waits for its own update before the next is sent. */
  function queue(request: PressRequest, waitForSocket: boolean): Promise<string[]> {
    const next = presses.then(() => pressOnce(request, waitForSocket));
    presses = next.catch(() => undefined);
    return next;
  }

  async function pressOnce(request: PressRequest, waitForSocket: boolean): Promise<string[]> {
    const message = find(request);
    if (!message) {
      const which = request.ts !== undefined ? `with ts ${request.ts}` : `number ${request.nth}`;
      throw new LocalPressError(
        `no alert message ${which} shown yet (${alertsShown.length} shown so far); press again once it is`,
      );
    }
    if (waitForSocket) await slack.waitForSocketConnection();
    else if (slack.socketConnections() === 0) {
      throw new LocalPressError(
        "no daemon is connected to press through: presses travel over Socket Mode, so run the daemon with SLACK_APP_TOKEN set",
      );
    }
    const lines: string[] = [];
    const say = (line: string) => {
      lines.push(line);
      out(line);
    };
    const where = label(message);
    const updatesBefore = slack.updates().length;
    const option = request.verb === "snooze" ? snoozeOption(message.blocks) : undefined;
    const envelope = slack.pressButton({
      channel: message.channel,
      ts: message.ts,
      actionId: PRESS_ACTIONS[request.verb],
      userId: PRESS_USER,
      ...(option ? { selectedOption: option } : {}),
    });
    say(`▶ pressing ${request.verb} on ${where} message ${message.ts} as <@${PRESS_USER}>`);
    await slack.waitForAck(envelope.envelopeId);
    const updatedNow = () =>
      slack
        .updates()
        .slice(updatesBefore)
        .some((u) => u.ts === message.ts);
    for (let waited = 0; waited < UPDATE_WAIT_MS && !updatedNow(); waited += UPDATE_POLL_MS) {
      await new Promise((done) => setTimeout(done, UPDATE_POLL_MS));
    }
    const updated = slack.posted().find((m) => m.ts === message.ts && m.channel === message.channel);
    if (!updatedNow() || !updated) {
      say(`(no update of message ${message.ts} yet: the daemon's log says why)`);
      return lines;
    }
    say(renderSlackMessage({ ...updated, channel: `${where} (updated)` }));
    return lines;
  }

  const fakeOptions: FakeSlackOptions = {
    onMessage,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.appToken !== undefined ? { appToken: options.appToken } : {}),
    ...(options.openWorkspace ? { openWorkspace: true, knownChannels: options.openWorkspace.knownChannels } : {}),
  };
  let slack: FakeSlack;
  try {
    slack = await pkg.startFakeSlack(fakeOptions);
  } catch (error) {
    transcript.end();
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new UsageError(
        `${options.command}: the local Slack cannot listen on 127.0.0.1:${options.port}: the port is taken (another sandbox?); pick another with --slack-port N`,
        { cause: error },
      );
    }
    throw error;
  }
  let pressedAtStart = Promise.resolve();
  return {
    slack,
    press: (request) => queue(request, false),
    pressWhenShown(request) {
      pressedAtStart = new Promise<void>((done) => {
        waiting = { request, done };
      });
    },
    async settled() {
      await presses;
      if (!waiting) await pressedAtStart;
    },
    async close() {
      await slack.close();
      await new Promise((done) => transcript.end(done));
    },
  };
}
