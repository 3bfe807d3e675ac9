// `@wfr/runtime/zod`: the zod the generated modules were generated for. The
// generated code imports zod only through this entry, so an app that has zod 3
// (or no zod at all, or a strict pnpm layout) still gives the generated
// schemas the zod 4 they use: the app never depends on which zod it has.
//
// zod's tree-shakable `zod/mini`, one named export per function the generated
// schemas call, never zod's whole namespace: a bundler keeps only the
// functions a workflow's schemas use (zod classic's methods reference all of
// zod, so any use of it kept ~440 KiB minified in an edge worker).
import { config, globalConfig, memoizer } from "zod/v4/core";
import en from "zod/v4/locales/en.js";

export type { ZodMiniType } from "zod/mini";
export {
  array,
  boolean,
  catchall,
  custom,
  exactOptional,
  intersection,
  json,
  lazy,
  literal,
  looseObject,
  never,
  nullable,
  number,
  optional,
  pipe,
  record,
  refine,
  strictObject,
  string,
  superRefine,
  transform,
  tuple,
  union,
  unknown,
  xor,
} from "zod/mini";

/**
 * What zod classic sets up on its first schema and `zod/mini` leaves to the app: English issue
 * messages ("Invalid input: expected string, received number") and the memoizer that lets
 * containers meet a value twice in one parse. Each only when the app has not configured one, as
 * classic does, so an app's own `config(...)` wins. Called by a generated schema builder before
 * it builds (the memoizer is read when a container schema is made).
 */
export function classicDefaults(): void {
  if (!globalConfig.localeError) config(en());
  if (!globalConfig.memoizer) config({ memoizer: memoizer() });
}
