// Options several commands take.
import type { Command } from "commander";

/** Which environment and where its key comes from. */
export const keyOptions = (c: Command) =>
  c
    .option("--env <env>", "environment from wfr.config.json")
    .option("--api-key-file <file>", "read the API key from this file")
    .option("--api-key-stdin", "read the API key from standard input")
    .option("--config <file>", "config file (default: wfr.config.json, searched upwards)");

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
