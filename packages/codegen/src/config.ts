// `wfr.codegen.json`: optional, pins workflow identifiers.
//   { "aliases": { "<env>": { "<workflowId>": "identifier" } } }
import { existsSync, readFileSync } from "node:fs";
import { DefinitionError } from "./definition-error.js";

export interface CodegenConfig {
  readonly aliases: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export function readConfig(file: string, required: boolean): CodegenConfig {
  if (!existsSync(file)) {
    if (required) throw new DefinitionError(file, "", "config file not found");
    return { aliases: {} };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new DefinitionError(file, "", `not valid JSON: ${(error as Error).message}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new DefinitionError(file, "", "must be an object");
  const aliases = (raw as { aliases?: unknown }).aliases ?? {};
  if (aliases === null || typeof aliases !== "object" || Array.isArray(aliases)) {
    throw new DefinitionError(file, "/aliases", "must be an object of environments");
  }
  const out: Record<string, Record<string, string>> = {};
  for (const [env, map] of Object.entries(aliases)) {
    if (map === null || typeof map !== "object" || Array.isArray(map)) {
      throw new DefinitionError(
        file,
        `/aliases/${env}`,
        "must be an object of workflowId -> identifier",
      );
    }
    out[env] = {};
    for (const [id, alias] of Object.entries(map)) {
      if (typeof alias !== "string")
        throw new DefinitionError(file, `/aliases/${env}/${id}`, "must be a string");
      (out[env] as Record<string, string>)[id] = alias;
    }
  }
  return { aliases: out };
}
