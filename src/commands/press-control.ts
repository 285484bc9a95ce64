import { randomBytes, timingSafeEqual } from "node:crypto";
import { once } from "node:events";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { LocalPressError, RetentionSyncError } from "../errors.js";
import { writePrivateFile } from "../write-private-file.js";
import { type PressRequest, parsePress, pressText } from "./local-slack.js";

/**
 * How `demo --press` (or `sandbox --press`) reaches the demo or sandbox already running in a
 * folder: the running one listens on a loopback port for presses and writes the address and a
 * random token to `<dir>/control.json` (owner-only); the pressing command reads the file, sends
 * the press and prints what came of it. The running one presses through its local Slack, so the
 * press takes the daemon's real Socket Mode path.
 */

export const CONTROL_FILE = "control.json";

const controlFileSchema = z.object({
  url: z.string().url(),
  token: z.string().min(16),
  command: z.string(),
  pid: z.number().int(),
});

const pressBodySchema = z.object({ press: z.string().max(100) });
const answerSchema = z.object({ ok: z.boolean(), lines: z.array(z.string()), error: z.string().optional() });

/** A small JSON body (a press is a few bytes): anything longer or unparseable is undefined. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 4_096) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

export interface PressControl {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the control endpoint and writes `<dir>/control.json`; close() removes both. */
export async function startPressControl(
  dir: string,
  command: string,
  press: (request: PressRequest) => Promise<string[]>,
): Promise<PressControl> {
  const token = randomBytes(24).toString("hex");
  const expected = Buffer.from(`Bearer ${token}`);
  const send = (res: ServerResponse, status: number, body: z.infer<typeof answerSchema>) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const presented = Buffer.from(req.headers.authorization ?? "");
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      return send(res, 401, { ok: false, lines: [], error: `the token of ${CONTROL_FILE} is required` });
    }
    if (req.method !== "POST" || req.url !== "/press")
      return send(res, 404, { ok: false, lines: [], error: "POST /press" });
    const body = pressBodySchema.safeParse(await readJson(req));
    if (!body.success) return send(res, 400, { ok: false, lines: [], error: 'expected {"press": "ack:1"}' });
    try {
      send(res, 200, { ok: true, lines: await press(parsePress(body.data.press, command)) });
    } catch (error) {
      if (!(error instanceof RetentionSyncError)) throw error;
      send(res, 409, { ok: false, lines: [], error: error.message });
    }
  }
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, { ok: false, lines: [], error: error instanceof Error ? error.message : String(error) }),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const file = join(dir, CONTROL_FILE);
  await writePrivateFile(file, `${JSON.stringify({ url, token, command, pid: process.pid }, null, 2)}\n`);
  return {
    url,
    async close() {
      rmSync(file, { force: true });
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function readControlFile(dir: string): z.infer<typeof controlFileSchema> | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, CONTROL_FILE), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = controlFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** True when a demo or sandbox answers at `<dir>/control.json` (a file left by one that died does not count). */
export async function runningIn(dir: string): Promise<{ command: string } | undefined> {
  const control = readControlFile(dir);
  if (!control) return undefined;
  try {
    // An empty POST: a live endpoint answers (400 or 401); a dead one refuses the connection.
    await fetch(new URL("/press", control.url), { method: "POST", body: "{}" });
    return { command: control.command };
  } catch {
    return undefined;
  }
}

/**
 * Sends a press to the demo or sandbox running in `dir` and returns the lines it printed there;
 * undefined when none runs there.
 */
export async function pressInRunning(dir: string, request: PressRequest): Promise<string[] | undefined> {
  const control = readControlFile(dir);
  if (!control) return undefined;
  let response: Response;
  try {
    response = await fetch(new URL("/press", control.url), {
      method: "POST",
      headers: { authorization: `Bearer ${control.token}`, "content-type": "application/json" },
      body: JSON.stringify({ press: pressText(request) }),
    });
  } catch {
    return undefined; // the file of one that stopped without removing it
  }
  const answer = answerSchema.safeParse(await response.json().catch(() => undefined));
  if (!answer.success) {
    throw new LocalPressError(
      `the ${control.command} running in ${dir} answered the press unreadably (${response.status})`,
    );
  }
  if (!answer.data.ok) throw new LocalPressError(answer.data.error ?? `the press failed (${response.status})`);
  return answer.data.lines;
}
