import { redact, redactValue } from "./redact.js";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** A log record: a message and structured fields. Both are redacted before the logger sees them. */
export interface LogRecord {
  readonly level: LogLevel;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Any logger with these methods (console, pino, a test spy) works. */
export interface Logger {
  debug?(message: string, fields?: Record<string, unknown>): void;
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export type Log = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

/** The log of a client without a logger: callers may skip building records for it. */
export const noLog: Log = () => {};

/** Wraps a caller's logger so every record is redacted of the given secrets first. */
export function createRedactingLog(logger: Logger | undefined, secrets: readonly string[]): Log {
  if (!logger) return noLog;
  return (level, message, fields = {}) => {
    const method = logger[level];
    if (!method) return;
    method.call(
      logger,
      redact(message, secrets),
      redactValue(fields, secrets) as Record<string, unknown>,
    );
  };
}
