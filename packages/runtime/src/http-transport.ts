// The thin I/O edge under the request pipeline: how a body goes out (bytes,
// or a half-duplex stream where the platform has one), how one attempt is
// bounded end to end (headers AND body), and the idle limit of a streamed
// download. The retry rules are in retry-rules.ts, the loop in pipeline.ts.

/** Per-request options accepted by every client method. */
export interface RequestOptions {
  /** Aborts the call (a library `RequestAbortedError`; a launch's error carries its idempotency key). */
  readonly signal?: AbortSignal | undefined;
  /** Per-attempt limit covering response headers and the whole body. */
  readonly timeoutMs?: number | undefined;
  /** Retries after the first attempt (so attempts = maxRetries + 1). */
  readonly maxRetries?: number | undefined;
  /** Extra request headers (Authorization cannot be overridden). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

import { yieldToEventLoop } from "./base64.js";

const STREAM_CHUNK_BYTES = 256 * 1024;
/** Bodies from this size go out as a stream of views (when the platform streams request bodies). */
export const STREAM_BODY_BYTES = 4 * 1024 * 1024;

let requestStreams: boolean | undefined;

/**
 * Whether fetch sends a ReadableStream request body. A platform without
 * request streams turns the stream into text, which adds a text/plain
 * Content-Type to the Request; one that streams leaves it. Platforms that
 * need `duplex: "half"` (Node) read the option; Deno, Bun and workerd stream
 * without reading it, so the header is the test, not the read. Checked once,
 * on the first large body.
 */
export function requestStreamsSupported(): boolean {
  if (requestStreams !== undefined) return requestStreams;
  try {
    const probe = new Request("http://localhost/", {
      method: "POST",
      body: new ReadableStream(),
      duplex: "half",
    } as RequestInit);
    requestStreams = !probe.headers.has("content-type");
  } catch {
    requestStreams = false;
  }
  return requestStreams;
}

let apiRedirectMode: RequestRedirect | undefined;

/**
 * How an API request treats a redirect: it is never followed (the API does
 * not redirect; a 3xx means a base URL that is not the API's own address).
 * "error" where the platform has it: by the Fetch standard (HTTP-network-or-
 * cache fetch) only a request in that mode goes out as it is, where any other
 * is cloned first, a POST's body with a tee of its stream; on Node that was
 * 5% of the runtime-overhead bench's launch + getRun + getResult. workerd
 * refuses "error" when the Request is built ("use manual and check the
 * status"): "manual" there, and the 3xx comes back as an answer that the
 * pipeline refuses by its status. Checked once.
 */
export function apiRedirectModeSupported(): RequestRedirect {
  apiRedirectMode ??= redirectModeOf(Request);
  return apiRedirectMode;
}

/** "error" when `RequestType` accepts that mode, else "manual". */
export function redirectModeOf(RequestType: typeof Request): RequestRedirect {
  try {
    new RequestType("http://localhost/", { redirect: "error" });
    return "error";
  } catch {
    return "manual";
  }
}

/**
 * A request body rendered per attempt as a stream (encoding as it is read),
 * or once as bytes where the platform has no request streams.
 */
export interface StreamableBody {
  readonly byteLength: number;
  /** A fresh stream of the whole body: one per attempt. */
  stream(): ReadableStream<Uint8Array>;
  /** The whole body as one buffer (the fallback). */
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
}

export type RequestBody = Uint8Array<ArrayBuffer> | StreamableBody;

/**
 * The body as it will go out on every attempt: a streamable body only where
 * streams work. A large body's send starts in a task of its own: the checks
 * and the plan before it, and on the first large body the platform loading
 * its stream internals for the probe, are one step; building the request
 * and its stream another.
 */
export async function sendableBody(
  body: RequestBody | undefined,
  streams: () => boolean = requestStreamsSupported,
  yieldNow: () => Promise<void> = yieldToEventLoop,
): Promise<RequestBody | undefined> {
  if (!body || body instanceof Uint8Array) return body;
  if (body.byteLength >= STREAM_BODY_BYTES && streams()) {
    await yieldNow();
    return body;
  }
  return body.bytes();
}

/**
 * The body part of one attempt's RequestInit. Large bodies go as a stream:
 * a streamable body's own, or views over the same bytes (fetch copies a
 * Uint8Array body whole, per the Fetch spec, which for a 36 MiB launch is one
 * more copy at the peak). Content-Length is set so the server still sees the
 * size up front. Where request streams are missing, the bytes go as they are.
 */
export function bodyInit(
  body: RequestBody | undefined,
  headers: Record<string, string>,
  streams: () => boolean = requestStreamsSupported,
): Pick<RequestInit, "body"> {
  if (!body) return {};
  if (!(body instanceof Uint8Array)) {
    headers["content-length"] = String(body.byteLength);
    return { body: body.stream(), duplex: "half" } as RequestInit;
  }
  if (body.byteLength < STREAM_BODY_BYTES || !streams()) return { body };
  headers["content-length"] = String(body.byteLength);
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= body.byteLength) return controller.close();
      const end = Math.min(offset + STREAM_CHUNK_BYTES, body.byteLength);
      controller.enqueue(body.subarray(offset, end));
      offset = end;
    },
  });
  return { body: stream, duplex: "half" } as RequestInit;
}

/** An attempt that ran out of its `timeoutMs`. */
export class AttemptTimeout extends Error {
  override name = "AttemptTimeout";
}

/**
 * How many attempts one signal serves at most. A signal handed to fetch keeps
 * a listener per request until the platform collects that request (Node's
 * fetch removes it from a finalizer, after a full collection), and Node walks
 * a signal's listeners on every add: a signal is retired after this many
 * attempts, so it never gathers more (Node warns at 1,500), and a new one is
 * made once in this many attempts.
 */
export const SIGNAL_USES = 16;

/**
 * A platform timer that can be re-armed in place and told not to hold the
 * process: Node's and Bun's `Timeout` (`refresh`, `ref`, `unref`). Deno and
 * workerd hand out numbers; there every attempt arms and clears a timer of its
 * own.
 */
interface RearmableTimer {
  refresh(): unknown;
  ref(): unknown;
  unref(): unknown;
}

function isRearmable(timer: unknown): timer is RearmableTimer {
  const candidate = timer as Partial<RearmableTimer> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.refresh === "function" &&
    typeof candidate.ref === "function" &&
    typeof candidate.unref === "function"
  );
}

/**
 * One armed timer and the attempt it bounds now. The callback reads `owner`
 * when it fires: a timer whose attempt ended whole is kept (unreferenced) for
 * the next attempt of the same length, which re-arms it (`refresh`) instead of
 * arming a new one. On Node that skips, per attempt, a new timer object and
 * the list and queue entries of its duration, made and dropped again with
 * every request of a client that sends one at a time; a kept timer that fires
 * with no owner does nothing.
 */
class AttemptTimer {
  owner: AttemptLimit | undefined;
  readonly handle: ReturnType<typeof setTimeout>;
  /** The setTimeout that armed it: a timer of faked timers is not re-armed once they are gone. */
  readonly armedBy: typeof setTimeout;

  constructor(
    readonly ms: number,
    owner: AttemptLimit,
  ) {
    this.owner = owner;
    this.armedBy = setTimeout;
    this.handle = setTimeout(() => this.owner?.expire(), ms);
  }
}

/**
 * The signal of the client's last attempt that ended whole (answer read, no
 * abort), kept for the next attempt: creating an AbortSignal is the dearest
 * part of bounding an attempt on Node 20 (an EventTarget whose prototype is
 * swapped, then fetch raising its listener limit on every new signal), and a
 * signal that never aborted is as good as new. Likewise its timer, where the
 * platform re-arms timers in place. Held by one attempt at a time; concurrent
 * attempts of the same client make their own.
 */
export class SpareSignal {
  #controller: AbortController | undefined;
  #uses = 0;
  #timer: AttemptTimer | undefined;

  /** The spare controller and how many attempts it served, or undefined when there is none. */
  take(): { controller: AbortController; uses: number } | undefined {
    const controller = this.#controller;
    if (!controller) return undefined;
    this.#controller = undefined;
    return { controller, uses: this.#uses };
  }

  /** Keeps a controller that did not abort, until it has served SIGNAL_USES attempts. */
  keep(controller: AbortController, uses: number): void {
    if (controller.signal.aborted || uses >= SIGNAL_USES) return;
    this.#controller = controller;
    this.#uses = uses;
  }

  /** The kept timer, when it has this length and the platform's timers are still the ones that armed it. */
  takeTimer(ms: number): AttemptTimer | undefined {
    const timer = this.#timer;
    if (!timer || timer.ms !== ms || timer.armedBy !== setTimeout) return undefined;
    this.#timer = undefined;
    return timer;
  }

  /** Keeps a re-armable timer with no attempt on it; it no longer holds the process. */
  keepTimer(timer: AttemptTimer): void {
    if (!isRearmable(timer.handle)) {
      clearTimeout(timer.handle);
      return;
    }
    timer.handle.unref();
    // The one it replaces, if any, fires with no owner: nothing happens.
    this.#timer = timer;
  }
}

/**
 * Bounds one attempt through the one signal its fetch is given, aborted after
 * `ms` or when the caller's signal aborts. An aborted fetch rejects while it
 * waits for headers and errors its body, so a pending `text()` rejects too
 * (Fetch: "abort the fetch" errors the response body stream; Node, Bun, Deno
 * and workerd all do it, test/runtimes/scenario.ts checks each), and the
 * socket is released at the limit, not at the platform's own timeout.
 *
 * Per attempt: one timer, and nothing raced against the fetch. The signal
 * cannot be lazy (fetch reads it when called); with a `SpareSignal` it is the
 * one of an earlier attempt that ended whole (`release`), else a new one, and
 * so is the timer where the platform re-arms one in place. A caller's signal
 * costs an `AbortSignal.any`, over a new controller, only when there is one.
 */
export class AttemptLimit {
  readonly signal: AbortSignal;
  #timedOut = false;
  readonly #ms: number;
  readonly #timer: AttemptTimer;
  readonly #controller: AbortController;
  readonly #uses: number;
  readonly #spare: SpareSignal | undefined;

  constructor(ms: number, callerSignal: AbortSignal | undefined, spare?: SpareSignal) {
    const kept = callerSignal ? undefined : spare?.take();
    const controller = kept?.controller ?? new AbortController();
    this.#ms = ms;
    this.#controller = controller;
    this.#uses = (kept?.uses ?? 0) + 1;
    this.#spare = callerSignal ? undefined : spare;
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, controller.signal])
      : controller.signal;
    const timer = this.#spare?.takeTimer(ms);
    if (timer && isRearmable(timer.handle)) {
      timer.owner = this;
      timer.handle.refresh();
      timer.handle.ref();
      this.#timer = timer;
    } else {
      this.#timer = new AttemptTimer(ms, this);
    }
  }

  /** Whether the attempt ended because its time ran out (not the caller, not the network). */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /** The time ran out: the attempt's fetch (headers or body) is aborted. */
  expire(): void {
    this.#timer.owner = undefined;
    this.#timedOut = true;
    this.#controller.abort(new AttemptTimeout(`no complete response within ${this.#ms} ms`));
  }

  clear(): void {
    this.#timer.owner = undefined;
    clearTimeout(this.#timer.handle);
  }

  /**
   * Ends the bound of an attempt whose fetch is over and whose body was read
   * whole, and hands its signal and timer to the next attempt: nothing of this
   * request is left for a later abort of the signal to touch (an answer handed
   * back unread, the recording's stream, ends with `clear()` only).
   */
  release(): void {
    this.#timer.owner = undefined;
    if (!this.#spare) {
      clearTimeout(this.#timer.handle);
      return;
    }
    this.#spare.keepTimer(this.#timer);
    this.#spare.keep(this.#controller, this.#uses);
  }
}

/**
 * A stream that errors when no chunk arrives for `idleMs` (the recording,
 * whose body is handed to the caller): a stalled download ends in a
 * RequestTimeoutError instead of hanging the reader.
 */
export function withIdleTimeout(
  stream: ReadableStream<Uint8Array>,
  idleMs: number,
  onTimeout: () => Error,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), idleMs);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), idle]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        reader.cancel().catch(() => undefined);
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
