// A small TCP round-robin balancer on 127.0.0.1 in front of the callback receivers: each new
// connection goes to the next backend in turn. A backend that is down (killed, not yet back)
// costs the connection: it is closed, and the service's delivery fails and is tried again, as
// behind a balancer that has not noticed yet.
import { connect, createServer, type Socket } from "node:net";

export interface RoundRobin {
  readonly port: number;
  /** The backends' ports; replace one when its process comes back on another port. */
  readonly backends: number[];
  close(): Promise<void>;
}

export async function startRoundRobin(backends: number[]): Promise<RoundRobin> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("error", () => socket.destroy());
    socket.once("close", () => open.delete(socket));
  };
  let turn = 0;
  const server = createServer((client) => {
    track(client);
    const port = backends[turn++ % backends.length];
    const backend = connect({ host: "127.0.0.1", port: port ?? 0 });
    track(backend);
    backend.once("close", () => client.destroy());
    client.once("close", () => backend.destroy());
    client.pipe(backend);
    backend.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("the balancer has no port");
  return {
    port: address.port,
    backends,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}
