// A status the runtime does not know arrives as "unrecognized" with the
// server's own word in `serverStatus` (spec: clients must treat any other
// string as a status they do not know); a person reading the CLI needs that word.

/** `running`, or `paused_by_ops (unrecognized)` for a status this client does not know. */
export function statusLabel(run: {
  readonly status: string;
  readonly serverStatus?: string;
}): string {
  return run.status === "unrecognized" && run.serverStatus !== undefined
    ? `${run.serverStatus} (unrecognized)`
    : run.status;
}
