// What every client method returns: a Promise of its data (with `_requestId`)
// that also gives the raw response on request, like openai-node's
// APIPromise.withResponse(). One mechanism for raw access on every call,
// instead of a second method per endpoint.
import { attachRequestId, type WithRequestId } from "./run-envelope.js";

/**
 * The data of a method together with the raw response it came from. For the
 * recording, `response.body` is the same stream as `data.stream` (read one).
 */
export interface WithResponse<T> {
  readonly data: WithRequestId<T>;
  readonly response: Response;
  readonly requestId: string | undefined;
}

/**
 * A Promise of the method's data; `.withResponse()` resolves to
 * `{ data, response, requestId }` instead. The request is sent once, whichever
 * is awaited (or both).
 *
 * ```ts
 * const run = await wfr.getRun(runId);
 * const { data, response } = await wfr.getRun(runId).withResponse();
 * ```
 */
export class ApiCall<T> extends Promise<WithRequestId<T>> {
  readonly #raw: Promise<WithResponse<T>>;
  #data: Promise<WithRequestId<T>> | undefined;

  constructor(raw: Promise<WithResponse<T>>) {
    // The base promise is never used: then/catch/finally read `raw`.
    super(resolveUnused);
    this.#raw = raw;
  }

  // Promise methods (then, Promise.all, ...) build plain Promises, not ApiCalls.
  static override get [Symbol.species]() {
    return Promise;
  }

  /** The data, the raw Response and the request id. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#raw;
  }

  #parsed(): Promise<WithRequestId<T>> {
    this.#data ??= this.#raw.then(dataOf);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: an ApiCall is a Promise; awaiting it reads the data.
  override then<A = WithRequestId<T>, B = never>(
    onFulfilled?: ((value: WithRequestId<T>) => A | PromiseLike<A>) | null,
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#then, so `(e: Error) => ...` handlers keep compiling.
    onRejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    // Straight from `raw` (an await is one promise, not a promise of the data, then another).
    return this.#raw.then(
      onFulfilled ? (raw) => onFulfilled(raw.data) : (dataOf as (raw: WithResponse<T>) => A),
      onRejected,
    );
  }

  override catch<B = never>(
    // biome-ignore lint/suspicious/noExplicitAny: the same signature as Promise#catch.
    onRejected?: ((reason: any) => B | PromiseLike<B>) | null,
  ): Promise<WithRequestId<T> | B> {
    return this.then(undefined, onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<WithRequestId<T>> {
    return this.#parsed().finally(onFinally);
  }
}

function resolveUnused(resolve: (value: never) => void): void {
  resolve(undefined as never);
}

function dataOf<T>(raw: WithResponse<T>): WithRequestId<T> {
  return raw.data;
}

/** The data with the response's request id on it, and the response. */
export function withResponseOf<T extends object>(
  data: T,
  response: Response,
  requestId: string | undefined,
): WithResponse<T> {
  return { data: attachRequestId(data, requestId), response, requestId };
}
