/** Tag normalisation: one rule everywhere (creation, lookup, filters, feeds). */

/** The display spelling: trimmed, Unicode NFC. */
export function cleanTag(tag: string): string {
  return tag.trim().normalize("NFC");
}

/** The matching key: trimmed, NFC, lower case. */
export function normalizeTag(tag: string): string {
  return cleanTag(tag).toLowerCase();
}

/** Distinct tags of a list by their normalised form, first spelling kept, in order. */
export function uniqueTags(
  tags: string[],
): { tag: string; normalizedTag: string }[] {
  const seen = new Map<string, string>();
  for (const raw of tags) {
    const tag = cleanTag(raw);
    const key = tag.toLowerCase();
    if (tag && !seen.has(key)) seen.set(key, tag);
  }
  return [...seen].map(([normalizedTag, tag]) => ({ tag, normalizedTag }));
}
