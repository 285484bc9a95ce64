import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/logger.js";
import { classifySlackError } from "../../src/slack/classify-slack-error.js";
import { createSlackWebClient, type SlackPoster, webClientPoster } from "../../src/slack/slack-poster.js";

type Answer = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/**
 * The daemon's Slack client (the SDK's WebClient over undici) against a loopback server that
 * answers each test's way: what goes out on the wire, and what each failure becomes.
 */
describe("the Slack client's HTTP (WebClient over undici)", () => {
  let server: Server;
  let base: string;
  let answer: Answer = () => undefined;
  const seen: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
        answer(req, body, res);
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  const poster = (apiUrl = base, timeoutMs = 2000): SlackPoster =>
    webClientPoster(createSlackWebClient({ token: "xoxb-test-token-1", apiUrl, logger: silentLogger(), timeoutMs }));
  const post = (p: SlackPoster) =>
    p.postMessage({ channel: "hr-alerts", text: "Ada may leave", blocks: [{ type: "divider" }], threadTs: "1.2" });
  const failureOf = async (p: Promise<unknown>) => {
    const error = await p.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (e: unknown) => e,
    );
    return classifySlackError(error);
  };
  const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => {
    return (_req, _body, res) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(value));
    };
  };

  it("posts a form-encoded chat.postMessage with the bot token and reads Slack's answer", async () => {
    answer = json(200, { ok: true, channel: "C0HR", ts: "1700000000.000100", unknown_field: 1 });
    seen.length = 0;
    expect(await post(poster())).toEqual({ channel: "C0HR", ts: "1700000000.000100" });
    const [call] = seen;
    expect(call?.method).toBe("POST");
    expect(call?.url).toBe("/api/chat.postMessage");
    expect(call?.headers.authorization).toBe("Bearer xoxb-test-token-1");
    expect(call?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(call?.headers["user-agent"]).toMatch(/@slack:web-api/);
    const form = new URLSearchParams(call?.body);
    expect(Object.fromEntries(form)).toEqual({
      channel: "hr-alerts",
      text: "Ada may leave",
      blocks: JSON.stringify([{ type: "divider" }]),
      unfurl_links: "false",
      unfurl_media: "false",
      thread_ts: "1.2",
    });
  });

  it("turns a 429 into a pause for its Retry-After", async () => {
    answer = json(429, { ok: false, error: "ratelimited" }, { "retry-after": "7" });
    expect(await failureOf(post(poster()))).toEqual({ kind: "rate-limited", code: "ratelimited", retryAfterMs: 7000 });
  });

  it("retries a 5xx and keeps a platform error for the operator", async () => {
    answer = (_req, _body, res) => {
      res.writeHead(503, { "content-type": "text/html" });
      res.end("<html>down</html>");
    };
    expect(await failureOf(post(poster()))).toMatchObject({ kind: "retryable", code: "http_503" });
    answer = json(200, { ok: false, error: "channel_not_found" });
    expect(await failureOf(post(poster()))).toMatchObject({ kind: "permanent", code: "channel_not_found" });
  });

  it("retries when nothing listens, when the answer never comes, and when it is a runaway body", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/api/`;
    closed.close();
    await once(closed, "close");
    expect(await failureOf(post(poster(closedUrl)))).toMatchObject({ kind: "retryable", code: "request_error" });

    answer = () => undefined; // holds the request: only the client's time-out ends it
    expect(await failureOf(post(poster(base, 200)))).toMatchObject({ kind: "retryable", code: "request_error" });

    answer = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 17; i += 1) res.write(chunk);
      res.end();
    };
    expect(await failureOf(post(poster()))).toMatchObject({ kind: "retryable", code: "request_error" });
  });
});
