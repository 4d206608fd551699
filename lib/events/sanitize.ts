/** Event descriptions are HTML from clients and peers: kept only through an allow-list. */
import sanitizeHtml from "sanitize-html";

/** Query parameters that only track people; removed from every link. */
const TRACKING_PARAMS = [
  /^utm_/i,
  /^fbclid$/i,
  /^gclid$/i,
  /^dclid$/i,
  /^msclkid$/i,
  /^mc_(eid|cid)$/i,
  /^igshid$/i,
  /^yclid$/i,
  /^_hsenc$/i,
  /^_hsmi$/i,
  /^mkt_tok$/i,
  /^twclid$/i,
];

/** A link without tracking parameters; unparseable links come back as they were. */
export function stripTracking(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href;
  }
  const keys = [...url.searchParams.keys()];
  const drop = keys.filter((k) => TRACKING_PARAMS.some((re) => re.test(k)));
  if (drop.length === 0) return href;
  for (const k of drop) url.searchParams.delete(k);
  return url.toString();
}

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "hr",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "del",
    "ins",
    "mark",
    "small",
    "sub",
    "sup",
    "a",
    "ul",
    "ol",
    "li",
    "blockquote",
    "code",
    "pre",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "span",
  ],
  allowedAttributes: { a: ["href", "title", "rel", "target"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  transformTags: {
    a: (tagName, attribs) => {
      const out: sanitizeHtml.Attributes = { ...attribs };
      if (out.href) out.href = stripTracking(out.href);
      out.rel = "noopener noreferrer nofollow";
      if (out.target) out.target = "_blank";
      return { tagName, attribs: out };
    },
  },
};

/** Sanitised HTML: no scripts, handlers, styles, iframes or `javascript:` links. */
export function sanitizeDescription(html: string): string {
  return sanitizeHtml(html, OPTIONS).trim();
}
