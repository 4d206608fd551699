/**
 * Whether the public-read cache is worth looking up at all. A lookup is not
 * free: working out the key reads the request's URL and headers, and finding
 * nothing in a cache of many entries touches memory nothing else uses (about
 * 2 µs a request under load, measured in BENCHMARKS.md's issue 33 section).
 * While a full cache answers almost none of the lookups (reads spread evenly
 * over more answers than it holds), it is dormant: only a sample of the
 * requests is looked up, the rest answered as with the cache off. The
 * sample's hits tell when it pays again (a page asked for again and again),
 * and the cache wakes. Nothing is served less fresh either way: a request not
 * looked up is answered by the routes. Only over the embedded database: a
 * miss over a remote one is a network round trip (milliseconds), which a hit
 * in a thousand lookups pays for.
 */

/** Lookups over which the share of hits is judged. */
const WINDOW_LOOKUPS = 1024;
/**
 * Below this share of hits among a full cache's lookups, the cache is
 * dormant. Over the embedded database a hit saves about 20 µs of server CPU
 * (a miss costs about 35, a hit 15) and a lookup costs about 2.4, so under 1
 * hit in 8 lookups the cache costs more than it saves; half that, to be sure
 * it does not pay.
 */
const PAYING_HITS = 1 / 16;
/** While dormant, one request in this many is looked up. */
const DORMANT_SAMPLE = 64;

/** Counts the cache's lookups and hits, and says which requests to look up. */
export class CacheLookups {
  #lookups = 0;
  #hits = 0;
  #full = false;
  #dormant = false;
  #passed = 0;
  readonly #mayDoze: boolean;

  /** `mayDoze`: whether it may go dormant (the embedded database). */
  constructor(mayDoze: boolean) {
    this.#mayDoze = mayDoze;
  }

  /**
   * Whether to look the next cacheable request up: always, but while the
   * cache is dormant, one request in DORMANT_SAMPLE.
   */
  looksUp(): boolean {
    return !this.#dormant || ++this.#passed % DORMANT_SAMPLE === 0;
  }

  /** Whether the cache is dormant (looksUp is a sample). */
  get dormant(): boolean {
    return this.#dormant;
  }

  /**
   * Notes a lookup: whether it hit, and whether the cache it went to is full
   * (a cache that still has room is filling, and its hits are still to come).
   */
  noteLookup(hit: boolean, full: boolean): void {
    this.#lookups++;
    if (hit) this.#hits++;
    this.#full = full;
    const paying = this.#hits >= WINDOW_LOOKUPS * PAYING_HITS;
    // Dormant, the cache wakes as soon as the window's hits show it pays.
    if (this.#dormant && paying) {
      this.#dormant = false;
      this.#lookups = this.#hits = 0;
      return;
    }
    if (this.#lookups < WINDOW_LOOKUPS) return;
    this.#dormant = this.#mayDoze && this.#full && !paying;
    this.#lookups = this.#hits = 0;
  }
}
