// Written by scripts/write-versions.mjs from package.json (changesets bumps it there); do not edit.
export const VERSION = "0.2.0";
