// The fault proxy: a net.Server on 127.0.0.1 in front of the emulator. It reads one whole
// request per connection (http-framing.ts), asks the schedule (fault-schedule.ts) what this
// connection gets, and applies it. Every connection carries one exchange (the head is rewritten
// to `Connection: close`), so "per connection" is "per request", retries included.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { ConnectionPlan } from "./fault-schedule.js";
import {
  gatewayPage,
  headLength,
  headWithConnectionClose,
  parseRequestHead,
  truncationPoint,
} from "./http-framing.js";

export interface FaultProxyOptions {
  /** The emulator's port on 127.0.0.1. */
  readonly upstreamPort: number;
  /** What connection `index` gets (fault-schedule.ts `planFor`). */
  readonly plan: (index: number) => ConnectionPlan;
  /** How long a stalled answer is held at most; the client's own timeout should end it first. */
  readonly stallMs: number;
}

/** One connection the proxy handled: what it applied, and to which launch. */
export interface ProxiedExchange {
  readonly index: number;
  readonly plan: ConnectionPlan;
  /** The request's Idempotency-Key (the business id, for the suite's launches). */
  readonly idempotencyKey: string | undefined;
}

export interface FaultProxy {
  readonly port: number;
  /** Every exchange so far, in the order the requests were read whole. */
  readonly exchanges: readonly ProxiedExchange[];
  /** Resolves once no connection is open (every copy of every request has been answered). */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ignore = () => undefined;

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const exchanges: ProxiedExchange[] = [];
  const open = new Set<Socket>();
  const track = (socket: Socket): Socket => {
    open.add(socket);
    socket.on("error", ignore);
    socket.once("close", () => open.delete(socket));
    return socket;
  };
  const upstream = () => track(connect({ host: "127.0.0.1", port: options.upstreamPort }));

  /** Sends `request` on a connection of its own and resolves with the whole answer. */
  const exchange = (request: Buffer): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const socket = upstream();
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.once("error", reject);
      socket.once("end", () => resolve(Buffer.concat(chunks)));
      socket.write(request);
    });

  const apply = (plan: ConnectionPlan, client: Socket, request: Buffer): void => {
    const answer = (bytes: Buffer) => {
      if (!client.destroyed) client.end(bytes);
    };
    switch (plan) {
      case "none": {
        const socket = upstream();
        socket.once("error", () => client.destroy());
        socket.pipe(client);
        socket.write(request);
        // Only a chunked body has more to come; the rest sent everything already.
        client.pipe(socket);
        return;
      }
      case "reset-mid-request": {
        // Half of the request reaches the server, then both connections are reset (RST).
        const socket = upstream();
        socket.write(request.subarray(0, Math.floor(request.length / 2)), () => {
          socket.resetAndDestroy();
          client.resetAndDestroy();
        });
        return;
      }
      case "reset-after-request": {
        // The whole request reaches the server; the client's connection is reset as the answer
        // starts to come back: the lost response an idempotency key exists for.
        const socket = upstream();
        socket.once("data", () => {
          client.resetAndDestroy();
          socket.destroy();
        });
        socket.once("error", () => client.resetAndDestroy());
        socket.write(request);
        return;
      }
      case "truncated-response":
        exchange(request).then(
          (response) => answer(response.subarray(0, truncationPoint(response))),
          () => client.destroy(),
        );
        return;
      case "stall-past-timeout": {
        // The server answers; the client never sees a byte of it. Its timeout ends the wait.
        const held = setTimeout(() => client.destroy(), options.stallMs);
        client.once("close", () => clearTimeout(held));
        exchange(request).catch(ignore);
        return;
      }
      case "twice-on-two-connections": {
        // Both copies go at once; the client gets whichever answer is whole first.
        let answered = false;
        const first = (response: Buffer) => {
          if (answered) return;
          answered = true;
          answer(response);
        };
        const both = [exchange(request).then(first), exchange(request).then(first)];
        Promise.allSettled(both).then(() => {
          if (!answered) client.destroy();
        });
        return;
      }
      case "gateway-502":
        // The request did reach the server (a run may exist); the gateway answers 502 anyway.
        exchange(request)
          .catch(ignore)
          .then(() => answer(gatewayPage()));
        return;
    }
  };

  const server: Server = createServer((client) => {
    track(client);
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const length = headLength(buffered);
      if (length < 0) return;
      const head = parseRequestHead(buffered.subarray(0, length));
      if (!head.chunked && buffered.length < length + head.contentLength) return;
      client.off("data", onData);
      const index = exchanges.length;
      // A chunked body's end is not known here: it goes through untouched, without a fault.
      const plan = head.chunked ? "none" : options.plan(index);
      exchanges.push({ index, plan, idempotencyKey: head.headers.get("idempotency-key") });
      const request = head.chunked
        ? buffered
        : Buffer.concat([
            headWithConnectionClose(buffered.subarray(0, length)),
            buffered.subarray(length, length + head.contentLength),
          ]);
      apply(plan, client, request);
    };
    client.on("data", onData);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("the fault proxy has no port");
  return {
    port: address.port,
    exchanges,
    async idle(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (open.size > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}
