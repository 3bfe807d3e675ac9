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

export class VirtualClock implements Clock {
  readonly virtual = true;
  constructor(private t: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  set(t: number): void {
    if (t > this.t) this.t = t;
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();
