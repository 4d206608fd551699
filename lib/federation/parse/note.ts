/**
 * A remote Note (a reply, or an Article, Page or Question) -> resource data.
 * Pure, liberal and never throwing, like the rest of parse/ (read.ts).
 */
import {
  clip,
  description,
  fail,
  get,
  httpUrl,
  idOf,
  instant,
  isObject,
  list,
  MAX_HTML,
  ok,
  pageUrl,
  type ParseResult,
  types,
} from "./read.ts";

/** A Note (reply) as resource data. */
export interface RemoteNote {
  ap_id: string;
  /** Sanitised HTML. */
  content: string;
  /** Ids (http(s) URLs) of the objects replied to. */
  inReplyTo: string[];
  attributedTo: string | null;
  url: string | null;
  /** ISO 8601 in UTC, or null. */
  published: string | null;
  /** Sanitised HTML (Mastodon's content warning), or null. */
  summary: string | null;
  /** The raw attachment objects, at most 4. */
  attachment: unknown[];
}

// Limits: see read.ts.
const MAX_SUMMARY = 5_000;
const MAX_NOTE_ATTACHMENTS = 4;

/** Object types that can be a reply; Mastodon, Mobilizon and Pleroma send Note. */
const NOTE_TYPES = new Set(["note", "article", "page", "question"]);

function parseNote(object: unknown): ParseResult<RemoteNote> {
  if (!isObject(object)) return fail("not an object");
  const t = types(object);
  if (t.size > 0 && ![...t].some((x) => NOTE_TYPES.has(x))) {
    return fail(`not a Note (type ${clip([...t].join(", "), 100)})`);
  }
  const ap_id = httpUrl(get(object, "id", "@id"));
  if (!ap_id) return fail("id: missing or not an absolute http(s) URL");
  const inReplyTo: string[] = [];
  for (const item of list(get(object, "inReplyTo"))) {
    const id = idOf(item);
    if (id && !inReplyTo.includes(id)) inReplyTo.push(id);
  }
  const published = instant(get(object, "published"));
  const summary = description(object, "summary", MAX_SUMMARY);
  return ok({
    ap_id,
    content: description(object, "content", MAX_HTML),
    inReplyTo,
    attributedTo: idOf(get(object, "attributedTo")) ??
      idOf(get(object, "actor")),
    url: pageUrl(get(object, "url")),
    published: published === null
      ? null
      : new Date(published * 1000).toISOString(),
    summary: summary === "" ? null : summary,
    // Raw, but only objects (strings are references) and only a few.
    attachment: list(get(object, "attachment")).filter(isObject).slice(
      0,
      MAX_NOTE_ATTACHMENTS,
    ),
  });
}

/** Parses a Note (a reply) into resource data; never throws. */
export function parseRemoteNote(object: unknown): ParseResult<RemoteNote> {
  try {
    return parseNote(object);
  } catch {
    return fail("unreadable note");
  }
}
