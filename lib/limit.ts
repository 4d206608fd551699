/** A bound on how many expensive jobs (feed builds, say) run at once. */

export interface Limiter {
  /** Runs `job` when fewer than the bound are running; others wait in order. */
  run<T>(job: () => Promise<T>): Promise<T>;
  /** Jobs running and waiting, for tests and diagnosis. */
  load(): { running: number; waiting: number };
}

/** A limiter letting `max` jobs run at the same time. */
export function createLimiter(max: number): Limiter {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) {
      running++;
      next();
    }
  };
  return {
    async run<T>(job: () => Promise<T>): Promise<T> {
      if (running < max) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await job();
      } finally {
        release();
      }
    },
    load: () => ({ running, waiting: waiting.length }),
  };
}
