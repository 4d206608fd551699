/** Where "now" comes from; injected so tests can pin it. */
export interface Clock {
  now(): Date;
}

/** The real clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that stays where it is put, for tests. */
export class FixedClock implements Clock {
  #now: Date;
  constructor(now: Date | string | number) {
    this.#now = new Date(now);
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(now: Date | string | number): void {
    this.#now = new Date(now);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

/** Unix seconds of a clock's now. */
export function unixNow(clock: Clock): number {
  return Math.floor(clock.now().getTime() / 1000);
}
