/**
 * A bounded in-process cache of public answers (anonymous GETs of events and
 * feeds). An entry is used only while the database's change marker is the one
 * it was computed under and for at most `ttlMs`, because listings depend on
 * "now" as well as on the data. Concurrent misses of one key share a single
 * computation, so a burst of readers costs one query.
 *
 * Admission: an answer is kept only when its key is asked for a second time
 * within the lifetime (a first miss leaves only a note of the key, in a
 * bounded table of keys seen once). A crawl over many distinct pages, each
 * asked for once, then costs no more than with the cache off, and does not
 * push out what is asked for again and again. Nor does a crawl that asks for
 * pages twice but over more of them than the cache holds: while making room
 * would push out an answer still fresh and never served from the cache (the
 * cache churns: answers fall out before they are asked for again), no answer
 * is kept (nor copied), and what is kept stays until it is served or expires.
 * Once the cache is full, an outdated answer keeps its place until another
 * pushes it out, and only a sample of the misses is considered for admission,
 * but for keys whose last answer was served often (considersMiss): reads
 * spread evenly over more answers than the cache holds (each asked for about
 * once a lifetime) then cost little more than with the cache off, where
 * keeping and replacing answers served once at most cost more than the hits
 * saved; and nothing more once the cache is dormant (lib/cache-lookups.ts).
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
  /** How many times it was served since it was stored. */
  hits: number;
  /** When it last moved to the end of the recency order (ms). */
  movedAt: number;
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
 * Keys asked for once are noted, to admit them on the next miss, in a table
 * of this many bytes a slot (a hash and a time), sized to a share of the
 * cache's budget (SEEN_SHARE).
 */
const SEEN_SLOT_BYTES = 12;
/**
 * An answer served this many times while fresh is asked for often enough to
 * be kept again once outdated, however full the cache (considersMiss).
 */
const KEPT_HITS = 4;
/** Once the cache is full, one miss in this many is considered for admission. */
const CHURN_SAMPLE = 64;
/**
 * Once the cache is full, a miss is considered at least this often (ms),
 * whatever the sample.
 */
const CONSIDER_EVERY_MS = 100;
/** An entry served again moves up the recency order at most this often (ms). */
const MOVE_EVERY_MS = 100;
/** Below this share of `maxBytes` the cache takes any admitted answer. */
const ROOM_SHARE = 0.9;
/** The share of `maxBytes` the keys seen once may take. */
const SEEN_SHARE = 1 / 8;

/**
 * A 32-bit hash of `key` (FNV-1a): where it is noted among the keys seen
 * once, and what tells it from another key noted in the same slot. Two keys
 * with one hash share a note: the second is admitted a miss early, which
 * costs a copy at most.
 */
function seenHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  }
  return hash | 0;
}

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
  /**
   * Keys missed once, and when (ms): slot `hash & mask` holds the last key
   * noted there, so a key is forgotten when another takes its slot (the
   * table is bounded by construction). Typed arrays, written in place: a Map
   * of the keys allocated per miss, grew and was copied, and cost a crawl's
   * misses more than anything else the cache does.
   */
  readonly #seenHashes: Int32Array;
  readonly #seenAt: Float64Array;
  readonly #seenMask: number;
  readonly #inFlight = new Map<string, Flight>();
  readonly #options: ResponseCacheOptions;
  #bytes = 0;
  /** Misses seen while the cache is full (see considersMiss). */
  #churnedMisses = 0;
  /** When a miss was last considered while the cache was full (ms). */
  #consideredAt = Number.NEGATIVE_INFINITY;

  constructor(options: ResponseCacheOptions) {
    this.#options = options;
    // The largest power of two that fits the share (at least 16 slots).
    const fits = options.maxBytes * SEEN_SHARE / SEEN_SLOT_BYTES;
    const slots = 2 ** Math.max(4, Math.floor(Math.log2(Math.max(1, fits))));
    this.#seenHashes = new Int32Array(slots);
    this.#seenAt = new Float64Array(slots).fill(Number.NaN);
    this.#seenMask = slots - 1;
  }

  /** Whether the answers kept take (nearly) all of the budget. */
  get full(): boolean {
    return !this.#hasRoom();
  }

  /** Whether caching is on at all. */
  get enabled(): boolean {
    return this.#options.ttlMs > 0;
  }

  /**
   * The answer cached for `key` under `marker`, if still fresh (no
   * computing). `marker` may be a function, called only when there is an
   * entry: most misses of spread reads then read no marker at all.
   */
  get(
    key: string,
    marker: string | (() => string | null),
  ): CachedAnswer | null {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    // Its age first: an entry past its lifetime is outdated whatever the
    // marker, and reading the marker may take the database file's lock.
    const now = this.#options.clock.now().getTime();
    const age = now - entry.storedAt;
    if (age < 0 || age >= entry.ttlMs) return null;
    if (typeof marker === "function") {
      const current = marker();
      if (current === null) return null;
      marker = current;
    }
    if (entry.marker === marker) {
      // Map order is recency order: move the entry to the end, at most once
      // per MOVE_EVERY_MS (a Map's delete and set on every hit cost a hot
      // answer more, the fuller the cache, than the exact order is worth).
      if (now - entry.movedAt >= MOVE_EVERY_MS || now < entry.movedAt) {
        this.#entries.delete(key);
        this.#entries.set(key, entry);
        entry.movedAt = now;
      }
      entry.hits++;
      return entry.answer;
    }
    // Outdated: it keeps its place until an answer pushes it out (dropped
    // now, it would make room for any miss, and reads spread over more
    // answers than the cache holds would refill the cache with answers nobody
    // asks for in time, every lifetime); its next answer is admitted as any
    // other's.
    return null;
  }

  /**
   * Whether a miss of `key` is worth the admission's bookkeeping (the keys
   * seen, the computations in flight): always while the cache has room, or
   * when `key`'s outdated answer, still in the cache, was served KEPT_HITS
   * times while fresh (asked for often: kept again on its next two misses);
   * otherwise, the cache being full, one miss in CHURN_SAMPLE and at least
   * one every CONSIDER_EVERY_MS, so that reads spread over more answers than
   * the cache holds cost little more than with the cache off, and an answer
   * asked for again and again is still noticed.
   */
  considersMiss(key: string): boolean {
    if (this.#hasRoom()) return true;
    if ((this.#entries.get(key)?.hits ?? 0) >= KEPT_HITS) return true;
    // And at least one miss every CONSIDER_EVERY_MS: with few requests (or
    // few looked up, lib/cache-lookups.ts), a sample by count alone would
    // take minutes to notice a page asked for again and again.
    const now = this.#options.clock.now().getTime();
    if (
      ++this.#churnedMisses % CHURN_SAMPLE !== 0 &&
      now - this.#consideredAt < CONSIDER_EVERY_MS && now >= this.#consideredAt
    ) {
      return false;
    }
    this.#consideredAt = now;
    return true;
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
    const keep = () =>
      (admitted || flight.joined) && this.#takesMore(now, marker);
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
          hits: 0,
          movedAt: now,
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
   * Otherwise the miss is noted (in the slot of another key, if need be).
   */
  #admit(key: string, now: number, ttlMs: number): boolean {
    const hash = seenHash(key);
    const slot = hash & this.#seenMask;
    if (this.#seenHashes[slot] === hash) {
      const age = now - this.#seenAt[slot];
      // Noted once: forgotten as it is admitted.
      this.#seenAt[slot] = Number.NaN;
      if (age >= 0 && age < ttlMs) return true;
    }
    this.#seenHashes[slot] = hash;
    this.#seenAt[slot] = now;
    return false;
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
  #takesMore(now: number, marker: string): boolean {
    if (this.#hasRoom()) return true;
    for (const entry of this.#entries.values()) {
      const age = now - entry.storedAt;
      return entry.hits > 0 || entry.marker !== marker || age < 0 ||
        age >= entry.ttlMs;
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
