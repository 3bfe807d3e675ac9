import { randomUUID } from "node:crypto";

/** A schema name no earlier test used, so each test starts from empty tables. */
export function freshSchema(): string {
  return `t_${randomUUID().replaceAll("-", "").slice(0, 20)}`;
}
