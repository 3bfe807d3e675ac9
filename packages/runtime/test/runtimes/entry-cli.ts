// Node, Bun and Deno: the config as the first argument, the report as one JSON line.
import { runScenario, type ScenarioConfig } from "./scenario.js";

const g = globalThis as { Deno?: { args: string[] }; process?: { argv: string[] } };
const arg = g.Deno ? g.Deno.args[0] : g.process?.argv[2];
const report = await runScenario(JSON.parse(arg ?? "{}") as ScenarioConfig);
console.log(`REPORT ${JSON.stringify(report)}`);
