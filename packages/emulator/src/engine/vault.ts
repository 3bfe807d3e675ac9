// Vault (docs/service-rules.md#vault): credentials are held apart from the API, used at run time
// by name, and never appear in any response, event, callback or log.

import { setOwn } from "../definition/validate-inputs.js";
import { isObject } from "../model/json-text.js";

const REDACTED = "[redacted]";

interface VaultUse {
  value: unknown;
  /** Names referenced by `{"vault": "name"}` that are not configured. */
  missing: string[];
  /** Names that were used. */
  used: string[];
}

/** Replace `{"vault": name}` references and any literal secret value with "[redacted]". */
export function redactVault(value: unknown, vault: Record<string, string>): VaultUse {
  const missing: string[] = [];
  const used: string[] = [];
  const secrets = Object.values(vault).filter((s) => s.length >= 4);
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 64) return null;
    if (typeof v === "string") {
      let s = v;
      for (const secret of secrets) if (s.includes(secret)) s = s.split(secret).join(REDACTED);
      return s;
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (isObject(v)) {
      const o = v;
      const keys = Object.keys(o);
      if (keys.length === 1 && keys[0] === "vault" && typeof o.vault === "string") {
        if (Object.hasOwn(vault, o.vault)) used.push(o.vault);
        else missing.push(o.vault);
        return REDACTED;
      }
      const out: Record<string, unknown> = {};
      for (const k of keys) setOwn(out, k, walk(o[k], depth + 1));
      return out;
    }
    return v;
  };
  return { value: walk(value, 0), missing, used };
}
