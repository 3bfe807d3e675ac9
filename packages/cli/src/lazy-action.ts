// A command's action, imported on demand: `wfr --help` loads neither TypeScript (codegen) nor the
// emulator, only the command definitions.
import { explainMissingPackage } from "./optional-packages.js";

type Action = (...args: never[]) => Promise<number>;

export function lazyAction<M>(load: () => Promise<M>, pick: (m: M) => Action) {
  return async (...args: unknown[]) => {
    try {
      const mod = await load();
      process.exitCode = await (pick(mod) as (...a: unknown[]) => Promise<number>)(...args);
    } catch (error) {
      explainMissingPackage(error, process.cwd());
    }
  };
}
