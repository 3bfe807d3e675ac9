// `@wfr/runtime/zod`: the zod the generated modules were generated for. The
// generated code imports zod only through this entry, so an app that has zod 3
// (or no zod at all, or a strict pnpm layout) still gives the generated
// schemas the zod 4 they use: the app never depends on which zod it has.
export { z } from "zod";
