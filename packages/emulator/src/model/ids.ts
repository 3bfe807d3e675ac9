// Ids of the emulator's objects (runs, sessions, checkpoints, events, requests): a prefix that
// says what the id names, then 20 random hex digits.
import { randomBytes } from "node:crypto";

export const newId = (prefix: string): string => `${prefix}_${randomBytes(10).toString("hex")}`;
