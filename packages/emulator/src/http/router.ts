// The emulator's router: route tables matched by Hono's trie router, and middleware composed
// around node:http's request and response.
//
// Why Hono's router and not a Hono app: the handlers answer on node's ServerResponse (streamed
// recordings, the MCP transport, the live view, a dropped connection as an API fault, a 413 that
// closes the socket), and Hono's node adapter builds a Fetch Request first, normalizing the path
// (`/a/../b`) and refusing Host headers before the emulator's own checks could answer them in
// its own words. Hono's router (the same matcher a Hono app uses) gives one table per surface
// with named parameters; the middleware chain is the small `compose` below.

import type { IncomingMessage, ServerResponse } from "node:http";
import { TrieRouter } from "hono/router/trie-router";

/** One request as every middleware and handler sees it. */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  /** The path without its query, empty segments dropped: `/production/api/v1/runs/x`. */
  readonly path: string;
  /** The path's segments, each percent-decoded (undecodable ones as sent). */
  readonly parts: readonly string[];
  readonly query: URLSearchParams;
  /** The matched route's parameters, decoded; set by `RouteTable.dispatch`. */
  params: Record<string, string>;
}

export type Handler<C extends RequestContext = RequestContext> = (ctx: C) => Promise<void> | void;
export type Middleware<C extends RequestContext = RequestContext> = (
  ctx: C,
  next: () => Promise<void>,
) => Promise<void> | void;

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The request target split by hand: `new URL("//host/x", base)` would read "host" as an
 * authority. Empty segments are dropped, so `//production///api` is `/production/api`.
 */
export function requestContext(req: IncomingMessage, res: ServerResponse): RequestContext {
  const raw = req.url ?? "/";
  const q = raw.indexOf("?");
  const rawSegments = (q < 0 ? raw : raw.slice(0, q)).split("/").filter((p) => p !== "");
  return {
    req,
    res,
    method: req.method ?? "GET",
    path: `/${rawSegments.join("/")}`,
    parts: rawSegments.map(decode),
    query: new URLSearchParams(q < 0 ? "" : raw.slice(q + 1)),
    params: {},
  };
}

/** Run `middleware` in order around `handler`; each calls `next()` to go on, or answers. */
export function compose<C extends RequestContext>(
  middleware: readonly Middleware<C>[],
  handler: Handler<C>,
): Handler<C> {
  return (ctx) => {
    const step = async (i: number): Promise<void> => {
      const m = middleware[i];
      if (m === undefined) return handler(ctx);
      let called = false;
      return m(ctx, () => {
        if (called) throw new Error("next() called twice");
        called = true;
        return step(i + 1);
      });
    };
    return step(0);
  };
}

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH" | "ALL";

/** One row of a route table, as the README's route table lists it. */
export interface RouteRow {
  method: Method;
  /** Hono syntax: `/runs/:runId`, `/_app/*`. */
  path: string;
  /** What it is for (the README's words). */
  purpose: string;
}

/**
 * A route table: rows of method, path and handler, matched by Hono's TrieRouter. When several
 * rows match (a literal and a parameter, a row and a wildcard), the one added first answers.
 * `HEAD` is matched as `GET`.
 */
export class RouteTable<C extends RequestContext = RequestContext> {
  private readonly router = new TrieRouter<[number, Handler<C>]>();
  private readonly list: RouteRow[] = [];

  add(method: Method, path: string, purpose: string, handler: Handler<C>): this {
    this.router.add(method, path, [this.list.length, handler]);
    this.list.push({ method, path, purpose });
    return this;
  }

  get rows(): readonly RouteRow[] {
    return this.list;
  }

  /** The handler for `method` and `path`, with its decoded parameters; null when none. */
  match(
    method: string,
    path: string,
  ): { handler: Handler<C>; params: Record<string, string> } | null {
    const m = method === "HEAD" ? "GET" : method.toUpperCase();
    const [matches] = this.router.match(m, path) as [
      [[number, Handler<C>], Record<string, string>][],
    ];
    let best: [[number, Handler<C>], Record<string, string>] | undefined;
    for (const found of matches) if (!best || found[0][0] < best[0][0]) best = found;
    if (!best) return null;
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(best[1])) params[k] = decode(v);
    return { handler: best[0][1], params };
  }

  /** Answer with the matching row's handler (its parameters in `ctx.params`); false if none. */
  async dispatch(ctx: C, path = ctx.path): Promise<boolean> {
    const found = this.match(ctx.method, path);
    if (found === null) return false;
    ctx.params = found.params;
    await found.handler(ctx);
    return true;
  }
}

/** `/runs/{runId}` (the specification's spelling) as Hono's `/runs/:runId`. */
export const honoPath = (specPath: string): string => specPath.replace(/\{([^}]+)\}/g, ":$1");
