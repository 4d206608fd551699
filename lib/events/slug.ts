/** Event slugs: lower-case ASCII from the title, unique by a numeric suffix. */
import slugify from "slugify";

/** The slug a title gives before uniqueness; empty for titles with no Latin transliteration. */
export function slugBase(title: string): string {
  return slugify(title, { lower: true, strict: true, trim: true }).slice(0, 80)
    .replace(/-+$/, "");
}

/** The first of `base`, `base-2`, `base-3`, ... not in `taken`. */
export function firstFreeSlug(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2;; n++) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
