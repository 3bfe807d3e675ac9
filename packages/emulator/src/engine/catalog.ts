// Catalog format (README "Catalog format"): environments, each with a workspace, a vault and
// workflows with input/output schemas and an optional scenario.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { yamlLibrary } from "@wfr/definition-reader";
import { isObject } from "../model/json-text.js";
import type { EnvironmentDef, WorkflowDef, WorkflowState } from "../model/types.js";
import { parseScenario } from "./scenario.js";

export class CatalogError extends Error {}

export interface CatalogWorkflow {
  id: string;
  name: string;
  description?: string;
  state?: WorkflowState;
  revision?: number;
  model?: boolean;
  inputs: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  example?: Record<string, unknown>;
  scenario?: unknown;
}

export interface CatalogEnvironment {
  workspace?: string;
  vault?: Record<string, string>;
  workflows: CatalogWorkflow[];
}

export interface CatalogObject {
  environments: Record<string, CatalogEnvironment>;
}

const ENV_NAME = /^[a-z0-9][a-z0-9_-]*$/i;
const WF_ID = /^[A-Za-z0-9_-]+$/;

export function catalogFromObject(raw: unknown, source = "catalog"): EnvironmentDef[] {
  if (!isObject(raw) || !isObject(raw.environments)) {
    throw new CatalogError(`${source}: expected an object with \`environments\``);
  }
  const envs: EnvironmentDef[] = [];
  for (const [name, e] of Object.entries(raw.environments)) {
    const where = `${source}: environments.${name}`;
    if (!ENV_NAME.test(name) || name === "_emulator")
      throw new CatalogError(`${where}: bad environment name`);
    if (!isObject(e) || !Array.isArray(e.workflows))
      throw new CatalogError(`${where}.workflows must be a list`);
    const workflows = new Map<string, WorkflowDef>();
    e.workflows.forEach((w: unknown, i: number) => {
      const wl = `${where}.workflows[${i}]`;
      if (!isObject(w) || typeof w.id !== "string" || !WF_ID.test(w.id)) {
        throw new CatalogError(`${wl}.id must be a string of letters, digits, _ or -`);
      }
      if (workflows.has(w.id)) throw new CatalogError(`${wl}: duplicate id ${w.id}`);
      if (!isObject(w.inputs)) throw new CatalogError(`${wl}.inputs must be an object schema`);
      const state = (w.state ?? "enabled") as WorkflowState;
      if (!["enabled", "draft", "disabled"].includes(state)) {
        throw new CatalogError(`${wl}.state must be enabled, draft or disabled`);
      }
      let scenario: WorkflowDef["scenario"];
      if (w.scenario !== undefined) {
        try {
          scenario = parseScenario(w.scenario);
        } catch (err) {
          throw new CatalogError(`${wl}.scenario: ${(err as Error).message}`);
        }
      }
      workflows.set(w.id, {
        id: w.id,
        name: typeof w.name === "string" ? w.name : w.id,
        description: typeof w.description === "string" ? w.description : "",
        state,
        revision: Number.isInteger(w.revision) ? (w.revision as number) : 1,
        model: w.model === true,
        inputs: w.inputs,
        outputs: isObject(w.outputs) ? w.outputs : { type: "object", properties: {} },
        ...(isObject(w.example) ? { example: w.example } : {}),
        ...(scenario ? { scenario } : {}),
      });
    });
    const vault: Record<string, string> = {};
    if (isObject(e.vault)) {
      for (const [k, v] of Object.entries(e.vault)) if (typeof v === "string") vault[k] = v;
    }
    envs.push({
      name,
      workspace: typeof e.workspace === "string" ? e.workspace : "ws_default",
      workflows,
      vault,
    });
  }
  return envs;
}

/**
 * The last catalog text parsed in this process, and what it parsed to. `yaml` takes 50-90 ms for
 * the 18 KB sample catalog, and a process that starts many emulators (a test file, the testing
 * kit) read the same file each time. The file is still read on every load: a changed file is
 * parsed again. Each load gets its own copy, so no emulator can change another's definitions.
 */
let lastParsed: { file: string; text: string; raw: unknown } | undefined;

function parseCatalogText(file: string, text: string): unknown {
  if (lastParsed?.file === file && lastParsed.text === text) return structuredClone(lastParsed.raw);
  const raw = file.endsWith(".json") ? JSON.parse(text) : yamlLibrary().parse(text);
  lastParsed = { file, text, raw: structuredClone(raw) };
  return raw;
}

export function loadCatalogFile(file: string): EnvironmentDef[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new CatalogError(`${file}: cannot read: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseCatalogText(file, text);
  } catch (e) {
    throw new CatalogError(`${file}: cannot parse: ${(e as Error).message}`);
  }
  return catalogFromObject(raw, file);
}

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures");

/** The sample catalog shipped in the package, as it is edited (fixtures/sample-catalog.yaml). */
export function builtinCatalogPath(): string {
  return join(FIXTURES, "sample-catalog.yaml");
}

/**
 * What an emulator without a catalog of its own loads: the same catalog as JSON
 * (fixtures/sample-catalog.json, written from the YAML by scripts/write-sample-catalog.mjs and
 * checked in `pnpm test`). Importing the `yaml` library and parsing the YAML took about 0.19
 * CPU-seconds of every such emulator's start; `JSON.parse` takes about 1 ms.
 */
export function builtinCatalogJsonPath(): string {
  return join(FIXTURES, "sample-catalog.json");
}
