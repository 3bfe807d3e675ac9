// A case file run on its own (`node bench/cases/<case>.mjs [--quick] [--help]`): prints the
// same table as `pnpm bench --only <case>`, writes no results file.
import { parseArgs } from "node:util";
import { formatRows } from "./table.mjs";

export async function standalone({ id, title, anchor, help, run }) {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(
      `${id}: ${title}\nanchor: ${anchor}\n\n${help}\n\nWith results JSON: pnpm bench --only ${id} [--quick]`,
    );
    return;
  }
  const result = await run({ quick: values.quick, log: (line) => console.log(`   ${line}`) });
  console.log(formatRows(result.rows ?? []));
  for (const note of result.notes ?? []) console.log(`note: ${note}`);
}
