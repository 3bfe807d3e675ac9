import { codesFor, EXIT, EXIT_MEANING, type ExitName } from "../../exit-codes.js";

export async function exitCodesCommand(): Promise<number> {
  for (const name of Object.keys(EXIT) as ExitName[]) {
    const meaning = [...codesFor(name), EXIT_MEANING[name]].join(", ");
    process.stdout.write(`${String(EXIT[name]).padStart(3)}  ${name.padEnd(22)} ${meaning}\n`);
  }
  return EXIT.OK;
}
