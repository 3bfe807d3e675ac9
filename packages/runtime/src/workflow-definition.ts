// The contract between @wfr/runtime and the code @wfr/codegen writes into
// @wfr/generated. Generated workflow objects implement WorkflowDefinition;
// the runtime only ever reads them through this interface, so neither side
// depends on how the other is built (and the runtime never imports zod).

import type { InputReason } from "@wfr/protocol";
/** `x-workflow.state`: only an enabled workflow can be launched (docs/service-rules.md#launchable-workflows: "Only an enabled workflow can be launched"). */
export type WorkflowState = "enabled" | "draft" | "disabled";

/** The model overrides the API accepts where the environment exposes `model`. */
export type ModelName = "pro" | "flash" | "lite" | "max";

/** The server's per-field reason codes for INVALID_INPUTS. */
export type InputIssueReason = InputReason;

/**
 * One problem with one input field, in the shape of the server's
 * `details[]` entries so that local and remote validation read the same.
 * `field` is the wire name; nested fields are joined with "." and array
 * indexes with "[n]" (for example `line_items[2].account`).
 */
export interface InputIssue {
  readonly field: string;
  readonly reason: InputIssueReason;
  readonly message: string;
}

/** One problem with one output field, found when reading a result. */
export interface OutputIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * A structural view of a schema (a zod schema satisfies it). Declared here so
 * that the type of a generated definition never mentions zod: an app that
 * only needs types does not make the type checker load zod.
 */
export interface SchemaLike<T> {
  safeParse(
    data: unknown,
  ):
    | { readonly success: true; readonly data: T }
    | { readonly success: false; readonly error: { readonly issues: readonly unknown[] } };
}

/**
 * What a generated workflow module exports as its definition object.
 *
 * - `Id` is the literal workflow id, `State` the literal state,
 *   `ModelExposed` whether this environment's launch body declares `model`,
 *   and `Model` the model names that environment allows for the workflow;
 *   `launch` uses them to make launching a draft or disabled workflow,
 *   passing `model` where it is not exposed, and passing a model the
 *   environment does not list, type errors.
 * - `Inputs` is what the caller passes (file fields take `FileInput` values
 *   made with `file()`; fields with a saved default are optional).
 * - `Outputs` is what a successful result carries.
 */
export interface WorkflowDefinition<
  Id extends string = string,
  Inputs = Record<string, unknown>,
  Outputs = Record<string, unknown>,
  State extends WorkflowState = WorkflowState,
  ModelExposed extends boolean = boolean,
  Model extends string = ModelName,
> {
  readonly id: Id;
  /** `x-workflow.name`, the display name. */
  readonly name: string;
  /** `info.x-environment` of the definition this was generated from. */
  readonly environment: string;
  readonly state: State;
  readonly revision: number;
  readonly modelExposed: ModelExposed;
  /** The model names this environment's definition allows for the workflow; empty when `model` is not exposed. */
  readonly models: readonly Model[];
  /** Strict schema of `inputs`: no coercion, unknown keys rejected. */
  readonly inputSchema: SchemaLike<Inputs>;
  /** Schema of `outputs`; tolerates added output fields. */
  readonly outputSchema: SchemaLike<Outputs>;
  /** Validates caller inputs and reports problems with the server's reason codes; empty when valid. */
  validateInputs(inputs: unknown): InputIssue[];
  /** Validates and returns the outputs of a successful result; empty when valid. */
  checkOutputs(outputs: unknown): OutputIssue[];
  /** Phantom members carrying the types; never present at run time. */
  readonly __inputs?: Inputs;
  readonly __outputs?: Outputs;
}

/** Any workflow definition, whatever its type parameters (the widest, for constraints). */
export type AnyWorkflowDefinition = WorkflowDefinition<
  string,
  // biome-ignore lint/suspicious/noExplicitAny: any inputs
  any,
  // biome-ignore lint/suspicious/noExplicitAny: any outputs
  any,
  WorkflowState,
  boolean,
  string
>;

/** A definition that can be passed to `launch`: its state is `enabled`. */
// biome-ignore lint/suspicious/noExplicitAny: the widest launchable definition, for constraints
export type LaunchableWorkflow = WorkflowDefinition<string, any, any, "enabled", boolean, string>;

/** The model names a definition allows (`never` when it does not expose `model`). */
export type ModelOf<W> =
  W extends WorkflowDefinition<string, unknown, unknown, "enabled", true, infer M> ? M : never;

export type InputsOf<W> =
  W extends WorkflowDefinition<string, infer I, unknown, WorkflowState, boolean, string>
    ? I
    : never;
export type OutputsOf<W> =
  W extends WorkflowDefinition<string, unknown, infer O, WorkflowState, boolean, string>
    ? O
    : never;
