/**
 * A bounded in-process cache of public answers (anonymous GETs of events and
 * feeds). An entry is used only while the database's change marker is the one
 * it was computed under and for at most `ttlMs`, because listings depend on
 * "now" as well as on the data. Concurrent misses of one key share a single
 * computation, so a burst of readers costs one query.
 *
 * Admission: an answer is kept only when its key is asked for a second time
 * within the lifetime (a first miss leaves only the key, in a small bounded
 * list of keys seen once). A crawl over many distinct pages, each asked for
 * once, then costs no more than with the cache off, and does not push out
 * what is asked for again and again. Nor does a crawl that asks for pages
 * twice but over more of them than the cache holds: while making room would
 * push out an answer still fresh and never served from the cache (the cache
 * churns: answers fall out before they are asked for again), no answer is
 * kept (nor copied), and what is kept stays until it is served or expires.
 */
import type { Clock } from "./clock.ts";

/** What is kept of an answer: enough to replay it byte for byte. */
export interface CachedAnswer {
  status: number;
  headers: [string, string][];
  /**
   * The text of the body. A string is shared by every hit and handed to the
   * HTTP layer as is, so a hit allocates nothing the garbage collector must
   * reclaim (bytes would be copied into a new buffer per Response).
   */
  body: string;
  /** Whether it has an ETag or Last-Modified (conditional requests may match). */
  validators: boolean;
}

interface Entry {
  answer: CachedAnswer;
  marker: string;
  storedAt: number;
  ttlMs: number;
  size: number;
  /** Whether it was served at least once since it was stored. */
  served: boolean;
}

export interface ResponseCacheOptions {
  /** How long an entry may be served, in milliseconds; 0 disables the cache. */
  ttlMs: number;
  /** Upper bound on the bodies kept, in bytes; least recently used go first. */
  maxBytes: number;
  clock: Clock;
}

/**
 * What an entry costs beyond its key and answer (the Map slot, the entry
 * object): a flood of tiny answers is bounded by the budget as well.
 */
const ENTRY_OVERHEAD_BYTES = 256;

/**
 * Keys asked for once, kept to admit them on the next miss: a share of the
 * cache's budget (keys count twice their length, plus this much each).
 */
const SEEN_OVERHEAD_BYTES = 64;
/** Once the cache is full, one miss in this many is considered for admission. */
const CHURN_SAMPLE = 16;
/** Below this share of `maxBytes` the cache takes any admitted answer. */
const ROOM_SHARE = 0.9;
/** The share of `maxBytes` the keys seen once may take. */
const SEEN_SHARE = 1 / 8;

/** A computation under way, which concurrent misses of its key join. */
interface Flight {
  /** The change marker it is computed under. */
  marker: string;
  answer: Promise<CachedAnswer | null>;
  /** Whether another request joined it (its key is asked for again). */
  joined: boolean;
}

export class ResponseCache {
  readonly #entries = new Map<string, Entry>();
  /** Keys missed once, with when (ms); oldest first. */
  readonly #seen = new Map<string, number>();
  #seenBytes = 0;
  readonly #inFlight = new Map<string, Flight>();
  readonly #options: ResponseCacheOptions;
  #bytes = 0;
  /** Misses seen while the cache is full (see considersMiss). */
  #churnedMisses = 0;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
  }

  /** Whether caching is on at all. */
  get enabled(): boolean {
    return this.#options.ttlMs > 0;
  }

  /** The answer cached for `key` under `marker`, if still fresh (no computing). */
  get(key: string, marker: string): CachedAnswer | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    const age = this.#options.clock.now().getTime() - entry.storedAt;
    if (entry.marker === marker && age >= 0 && age < entry.ttlMs) {
      // Map order is recency order: move the entry to the end.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.served = true;
      return entry.answer;
    }
    // Outdated, but asked for again: its next answer is kept at once.
    this.#remove(key, entry);
    this.#remember(key, this.#options.clock.now().getTime());
    return null;
  }

  /**
   * Whether a miss is worth the admission's bookkeeping (the keys seen,
   * the computations in flight): always while the cache has room; once it is
   * full, one miss in CHURN_SAMPLE, so that a crawl wider than the cache
   * costs less of that work, and an answer asked for again and again is
   * still noticed.
   */
  considersMiss(): boolean {
    if (this.#hasRoom()) return true;
    return ++this.#churnedMisses % CHURN_SAMPLE === 0;
  }

  /**
   * The cached answer for `key` under `marker`, or the result of `compute`
   * (null means "not cacheable"). It is stored when the key was asked for
   * before within the lifetime, or by a concurrent request meanwhile:
   * `compute` is told so through `keep()` (asked once its answer is made),
   * and need not capture an answer that will not be kept.
   * Concurrent calls with the same key and marker share one computation.
   * `ttlMs` may lengthen the default lifetime for answers that allow it;
   * `missed`: the caller has just found nothing under `key` with get().
   */
  async getOrCompute(
    key: string,
    marker: string,
    compute: (keep: () => boolean) => Promise<CachedAnswer | null>,
    ttlMs = this.#options.ttlMs,
    missed = false,
  ): Promise<CachedAnswer | null> {
    if (!missed) {
      const cached = this.get(key, marker);
      if (cached) return cached;
    }
    const now = this.#options.clock.now().getTime();
    const running = this.#inFlight.get(key);
    if (running?.marker === marker) {
      running.joined = true;
      // A shared answer that was not cacheable (an error, say) is not shared.
      return await running.answer ?? await compute(() => true);
    }
    const admitted = this.#admit(key, now, ttlMs);
    const flight: Flight = {
      marker,
      answer: Promise.resolve(null),
      joined: false,
    };
    // Asked for before, or by another request while it is computed: kept.
    const keep = () => (admitted || flight.joined) && this.#takesMore(now);
    const answer = compute(keep);
    flight.answer = answer.catch(() => null);
    this.#inFlight.set(key, flight);
    try {
      const result = await answer;
      if (result && keep()) {
        this.#store(key, {
          answer: result,
          marker,
          storedAt: now,
          ttlMs,
          served: false,
        });
      }
      return result;
    } finally {
      // A computation under a newer marker may have taken the key meanwhile.
      if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    }
  }

  /**
   * Whether `key`'s answer may be kept: it was missed before within `ttlMs`.
   * Otherwise the key is remembered (the oldest forgotten past the budget).
   */
  #admit(key: string, now: number, ttlMs: number): boolean {
    const seenAt = this.#seen.get(key);
    if (seenAt !== undefined) {
      this.#forget(key);
      const age = now - seenAt;
      if (age >= 0 && age < ttlMs) return true;
    }
    this.#remember(key, now);
    return false;
  }

  /** Notes `key` as asked for at `now` (the oldest forgotten past the budget). */
  #remember(key: string, now: number) {
    this.#forget(key);
    this.#seen.set(key, now);
    this.#seenBytes += key.length * 2 + SEEN_OVERHEAD_BYTES;
    const budget = this.#options.maxBytes * SEEN_SHARE;
    for (const k of this.#seen.keys()) {
      if (this.#seenBytes <= budget) break;
      this.#forget(k);
    }
  }

  #forget(key: string) {
    if (this.#seen.delete(key)) {
      this.#seenBytes -= key.length * 2 + SEEN_OVERHEAD_BYTES;
    }
  }

  #store(key: string, fresh: Omit<Entry, "size">) {
    // The key counts too: distinct keys are what a flood of requests makes.
    const size = (key.length + fresh.answer.body.length) * 2 +
      fresh.answer.headers.reduce((n, [k, v]) => n + k.length + v.length, 0) +
      ENTRY_OVERHEAD_BYTES;
    // One answer larger than a quarter of the budget would evict too much.
    if (size > this.#options.maxBytes / 4) return;
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    this.#entries.set(key, { ...fresh, size });
    this.#bytes += size;
    for (const [k, e] of this.#entries) {
      if (this.#bytes <= this.#options.maxBytes) break;
      this.#remove(k, e);
    }
  }

  /**
   * Whether an answer may be added: there is room, or the least recently
   * used entry, which would make it, was served or is out of date (else the
   * cache churns, see the module's comment).
   */
  #takesMore(now: number): boolean {
    if (this.#hasRoom()) return true;
    for (const entry of this.#entries.values()) {
      const age = now - entry.storedAt;
      return entry.served || age < 0 || age >= entry.ttlMs;
    }
    return true;
  }

  /** Whether the answers kept take less than ROOM_SHARE of the budget. */
  #hasRoom(): boolean {
    return this.#bytes < this.#options.maxBytes * ROOM_SHARE;
  }

  #remove(key: string, entry: Entry) {
    this.#entries.delete(key);
    this.#bytes -= entry.size;
  }
}
