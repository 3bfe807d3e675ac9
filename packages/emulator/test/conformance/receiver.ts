// A local callback receiver: counts deliveries and can fail the first N.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Json } from "./support.js";

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  answered: number;
}

export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** Per path: answer `status` to the first `count` deliveries (status 0: never answer). */
  private failures = new Map<string, { count: number; status: number }>();
  private server: Server;
  private perPath = new Map<string, number>();

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<Receiver> {
    const server = createServer();
    const rec = new Receiver(server);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (d: Buffer) => chunks.push(d));
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        let body: Json;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const path = req.url ?? "/";
        const seen = (rec.perPath.get(path) ?? 0) + 1;
        rec.perPath.set(path, seen);
        const rule = rec.failures.get(path);
        const status = rule && seen <= rule.count ? rule.status : 200;
        if (status === 0) {
          // Hang: never answer (the connection is dropped when the receiver closes).
          rec.deliveries.push({ path, headers: req.headers, raw, body, answered: 0 });
          return;
        }
        rec.deliveries.push({ path, headers: req.headers, raw, body, answered: status });
        res.writeHead(status, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return rec;
  }

  fail(path: string, count: number, status: number): void {
    this.failures.set(path, { count, status });
  }

  url(path: string): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${path}`;
  }

  to(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}
