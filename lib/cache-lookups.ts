/**
 * Whether the public-read cache is worth looking up at all. A lookup is not
 * free: working out the key reads the request's URL and headers, and finding
 * nothing in a cache of many entries touches memory nothing else uses (about
 * 2.4 µs a request under load, measured in BENCHMARKS.md's issue 33 section).
 * While the cache answers almost none of the lookups, its parts full (reads
 * spread evenly over more answers than it holds), it is dormant: only a
 * sample of the cacheable requests is looked up, the rest answered as with
 * the cache off. The sample's hits wake it; and every so often (DORMANT_MS, or
 * a window of sampled lookups) it looks every request up for a window again,
 * so that a page asked for too seldom for the sample to notice is noticed
 * there. Nothing is served less fresh either way: a request not looked up is
 * answered by the routes. Only over the embedded database: a miss over a
 * remote one is a network round trip (milliseconds), which a hit in a
 * thousand lookups pays for.
 */
import type { Clock } from "./clock.ts";

/** Lookups over which the share of hits is judged. */
const WINDOW_LOOKUPS = 1024;
/**
 * Below this share of hits among a full part's lookups, the part does not
 * pay. Over the embedded database a hit saves about 20 µs of server CPU (a
 * miss costs about 35, a hit 15) and a lookup costs about 2.4, so under 1 hit
 * in 8 lookups the cache costs more than it saves; half that, to be sure.
 */
const PAYING_HITS = 1 / 16;
/** While dormant, one cacheable request in this many is looked up. */
const DORMANT_SAMPLE = 64;
/** A dormant cache looks every request up again after this long (ms) at most. */
const DORMANT_MS = 10_000;

/** One part's lookups and hits in the current window. */
interface PartCount {
  lookups: number;
  hits: number;
  /** Whether the part was full at its last lookup. */
  full: boolean;
}

/** Counts the cache's lookups and hits, and says which requests to look up. */
export class CacheLookups {
  readonly #parts: PartCount[];
  #lookups = 0;
  #dormant = false;
  #dormantSince = 0;
  #passed = 0;
  /** A sample is due: the next cacheable request is looked up. */
  #due = false;
  readonly #mayDoze: boolean;
  readonly #clock: Clock;

  /**
   * `parts`: how many caches the lookups go to (each judged on its own hits);
   * `mayDoze`: whether it may go dormant (the embedded database).
   */
  constructor(parts: number, mayDoze: boolean, clock: Clock) {
    this.#parts = Array.from(
      { length: parts },
      () => ({ lookups: 0, hits: 0, full: true }),
    );
    this.#mayDoze = mayDoze;
    this.#clock = clock;
  }

  /**
   * Whether to look the next request up: always, but while the cache is
   * dormant, one in DORMANT_SAMPLE; a sample stays due until a cacheable
   * request is looked up (noteLookup), so that requests the cache never
   * holds, however regular, do not take every sample.
   */
  looksUp(): boolean {
    if (!this.#dormant || this.#due) return true;
    if (++this.#passed % DORMANT_SAMPLE === 0) this.#due = true;
    return this.#due;
  }

  /** Whether the cache is dormant (looksUp is a sample). */
  get dormant(): boolean {
    return this.#dormant;
  }

  /**
   * Notes a lookup in cache `part`: whether it hit, and whether that cache is
   * full (a cache that still has room is filling, its hits still to come).
   */
  noteLookup(part: number, hit: boolean, full: boolean): void {
    this.#due = false;
    const count = this.#parts[part];
    count.lookups++;
    if (hit) count.hits++;
    count.full = full;
    this.#lookups++;
    if (this.#dormant) {
      // Woken at once by hits enough for a whole window; else looking every
      // request up again after a window of samples, or DORMANT_MS.
      if (count.hits >= WINDOW_LOOKUPS * PAYING_HITS) return this.#wake();
      if (
        this.#lookups >= WINDOW_LOOKUPS ||
        this.#clock.now().getTime() - this.#dormantSince >= DORMANT_MS
      ) {
        this.#wake();
      }
      return;
    }
    if (this.#lookups < WINDOW_LOOKUPS) return;
    // Dormant when no part pays: each part looked up is full and below one
    // hit in 1/PAYING_HITS lookups.
    const pays = this.#parts.some((p) =>
      p.lookups > 0 && (!p.full || p.hits >= p.lookups * PAYING_HITS)
    );
    this.#reset();
    if (this.#mayDoze && !pays) {
      this.#dormant = true;
      this.#dormantSince = this.#clock.now().getTime();
    }
  }

  /** Looks every request up again, over a window of its own. */
  #wake(): void {
    this.#dormant = false;
    this.#reset();
  }

  #reset(): void {
    this.#lookups = 0;
    for (const p of this.#parts) {
      p.lookups = 0;
      p.hits = 0;
      p.full = true;
    }
  }
}
