/**
 * Text search: the full-text index over events (event_search, FTS5) and a
 * case-insensitive substring match for the small admin lists.
 */
import { type SQL, sql, type SQLWrapper } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { events, eventSearchStale } from "../db/schema.ts";
import { invalidRequest } from "./errors.ts";

/** Longest search text accepted, in UTF-16 units after trimming (as zod's `max`). */
export const SEARCH_QUERY_MAX_LENGTH = 100;

/**
 * Most words one search may have. Each word is one more prefix lookup in the
 * index, so this and the length bound what a single search costs.
 */
export const SEARCH_MAX_TERMS = 8;

/**
 * A word as the index's tokenizer reads one (unicode61 with the categories
 * `L* N* Co M*`): a run of letters, digits, private-use characters and
 * combining marks. Everything else (spaces, punctuation, symbols, and so the
 * FTS5 operators `"`, `*`, `-`, `:`, `^`, `+`, parentheses) separates words.
 */
const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
/** A word needs more than marks: a lone mark folds to an empty prefix, which matches every word. */
const HAS_BASE = /[\p{L}\p{N}\p{Co}]/u;

/**
 * The distinct words of a search text, as typed (NFC; a word that starts
 * another one adds nothing to a prefix search and is left out). Throws a 400 when the
 * text is longer than SEARCH_QUERY_MAX_LENGTH or has more than
 * SEARCH_MAX_TERMS words.
 */
export function searchTerms(text: string, field = "query"): string[] {
  const trimmed = text.trim();
  if (trimmed.length > SEARCH_QUERY_MAX_LENGTH) {
    throw invalidRequest("The request is not valid", [{
      field,
      message: `at most ${SEARCH_QUERY_MAX_LENGTH} characters`,
    }]);
  }
  // Words go to the index as typed: it folds case and accents by its own
  // tables, the same way for the text and the query (JavaScript knows newer
  // scripts' cases). Lower case here only tells repeated words apart.
  const byKey = new Map<string, string>();
  for (const word of trimmed.normalize("NFC").match(WORD) ?? []) {
    const key = word.toLowerCase();
    if (HAS_BASE.test(word) && !byKey.has(key)) byKey.set(key, word);
  }
  if (byKey.size > SEARCH_MAX_TERMS) {
    throw invalidRequest("The request is not valid", [{
      field,
      message: `at most ${SEARCH_MAX_TERMS} words`,
    }]);
  }
  const keys = [...byKey.keys()];
  return keys.filter((k) =>
    !keys.some((other) => other !== k && other.startsWith(k))
  ).map((k) => byKey.get(k)!);
}

/**
 * An FTS5 query for events having every term as the start of a word in their
 * title, description, place or tags. Each term is a quoted string, so nothing
 * in it is ever read as FTS5 syntax (AND, OR, NOT, NEAR, column filters).
 */
export function ftsPrefixQuery(terms: string[]): string {
  return terms.map((t) => `"${t.replaceAll('"', '""')}"*`).join(" AND ");
}

/**
 * Events whose title, description, place or tags have every term as the
 * start of a word (see ftsPrefixQuery), through the event_search index, which
 * triggers keep in step with every write (db/migrations/0007_event_search.sql).
 *
 * The index answers with the set of matching ids, built once per statement
 * for each place the condition appears in (the first time a row is tested),
 * at a cost that grows with the number of matching events, never with the
 * text (each word's list of events is read and merged in C). The unary `+`
 * keeps the planner from driving the query by that set (a lookup and a sort
 * per match), so that it walks the listing's time indexes as without a
 * search, tests each entry against the set before reading the row, and stops
 * at the page's end. `id`: the event id tested (events.id, or a walk's id).
 */
export function matchesTerms(
  terms: string[],
  id: SQLWrapper = events.id,
): SQL {
  return sql`+${id} in (select rowid from event_search where event_search match ${
    ftsPrefixQuery(terms)
  })`;
}

/**
 * The statement that brings the index rows of events whose tags changed up to
 * date, one refresh per event (see eventSearchStale). Ends every batch that
 * writes event_tags.
 */
export function refreshStaleSearchRows(db: Db) {
  return db.delete(eventSearchStale);
}

/**
 * A GLOB pattern matching `text` anywhere, whatever the case: each letter
 * becomes a class of its lower and upper forms (`café` -> `*[cC][aA][fF][éÉ]*`).
 * SQLite's LIKE and lower() fold only ASCII letters; GLOB classes take any
 * character, so "CAFÉ" is found by "café". Wildcards in `text` are literal.
 * Its cost grows with the pattern times the text: keep it to short patterns
 * over small tables.
 */
export function caseInsensitiveGlob(text: string): string {
  let out = "*";
  for (const ch of text.normalize("NFC")) {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    if (ch === "*" || ch === "?" || ch === "[") {
      out += `[${ch}]`;
    } else if (
      lower !== upper && [...lower].length === 1 && [...upper].length === 1
    ) {
      out += `[${lower}${upper}]`;
    } else {
      out += ch;
    }
  }
  return `${out}*`;
}
