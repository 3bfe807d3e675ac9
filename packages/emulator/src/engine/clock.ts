// Real or virtual time. With the virtual clock, time only moves on POST /_emulator/clock/advance.
export interface Clock {
  readonly virtual: boolean;
  now(): number;
}

export class RealClock implements Clock {
  readonly virtual = false;
  now(): number {
    return Date.now();
  }
}

/** Latest time the clock may show: any later and ISO timestamps cannot be written. */
export const LATEST_TIME_MS = Date.UTC(9999, 0, 1);
/** Largest single advance of the virtual clock (10 years); more is a 400 naming `ms`. */
export const MAX_ADVANCE_MS = 10 * 365 * 86_400_000;

export class VirtualClock implements Clock {
  readonly virtual = true;
  constructor(private t: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    // A bad time (also one persisted by an older version) is ignored, never adopted.
    if (Number.isFinite(t) && t <= LATEST_TIME_MS && t > this.t) this.t = t;
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
