/**
 * A loopback TCP proxy in front of a server (Postgres) that a test can partition: the network
 * between one replica and its database fails, then comes back.
 *
 * - `partition()`: every connection through the proxy goes silent on the client's side (nothing
 *   arrives, nothing is answered, no reset) while the server's side is closed, as the server's
 *   TCP keepalive would close it after a real partition. New connections are accepted and held
 *   silent too.
 * - `heal()`: the network is back: the client sees the connections that died during the
 *   partition reset, and new connections pass again.
 * - `stall()`: the server hangs (Postgres stopped answering, as under a frozen disk): nothing
 *   passes either way, every connection stays open, new ones are accepted and held; the server
 *   keeps its sessions (and their locks). `resume()`: everything held passes on, in order.
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  readonly port: number;
  /** Whether a partition is on. */
  readonly partitioned: boolean;
  partition(): void;
  heal(): void;
  stall(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  const held = new Set<Socket>();
  let partitioned = false;
  let stalled = false;
  /** Connections accepted during a stall, wired up on `resume`. */
  const waiting: Socket[] = [];

  const silence = (client: Socket) => {
    client.pause();
    client.removeAllListeners("data");
    client.on("error", () => undefined);
    held.add(client);
  };

  const server: Server = createServer((client) => {
    client.on("error", () => undefined);
    if (partitioned) {
      silence(client);
      return;
    }
    if (stalled) {
      client.pause();
      waiting.push(client);
      return;
    }
    wire(client);
  });
  const wire = (client: Socket) => {
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream: upstream as Socket | undefined };
    pairs.add(pair);
    upstream.on("error", () => client.destroy());
    client.on("data", (chunk) => upstream.write(chunk));
    upstream.on("data", (chunk) => client.write(chunk));
    client.on("close", () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    upstream.on("close", () => {
      if (!held.has(client)) client.destroy();
    });
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("tcp proxy: no port");

  return {
    port: address.port,
    get partitioned() {
      return partitioned;
    },
    partition() {
      partitioned = true;
      for (const pair of pairs) {
        silence(pair.client);
        pair.upstream?.removeAllListeners("data");
        pair.upstream?.destroy();
        pair.upstream = undefined;
      }
      pairs.clear();
    },
    heal() {
      partitioned = false;
      for (const client of held) client.resetAndDestroy();
      held.clear();
    },
    stall() {
      stalled = true;
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    resume() {
      stalled = false;
      for (const pair of pairs) {
        pair.client.resume();
        pair.upstream?.resume();
      }
      for (const client of waiting.splice(0)) {
        wire(client);
        client.resume();
      }
    },
    async close() {
      for (const client of waiting.splice(0)) client.destroy();
      for (const client of held) client.destroy();
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
