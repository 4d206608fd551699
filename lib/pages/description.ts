/**
 * An event's description as the page shows it. Descriptions are stored
 * sanitised (lib/events/sanitize.ts), but some are text without any markup
 * (posted as plain text through the API, imported, received): in HTML their
 * line breaks would collapse and their addresses would not be links.
 */
import { plainTextToHtml } from "../events/form.ts";
import { htmlToText } from "../feeds/words.ts";

/** Any element of the sanitiser's allow-list, opening or closing. */
const TAG = /<\/?[a-z][a-z0-9]*\b[^>]*>/i;
/** Elements that make paragraphs or lines themselves. */
const BLOCK = /<(p|br|div|ul|ol|li|h[1-6]|blockquote|pre|hr)\b/i;

/** Whether a stored description is plain text (no markup at all). */
export function isPlainText(description: string): boolean {
  return !TAG.test(description);
}

/**
 * The description's HTML for the page: plain text becomes paragraphs (a blank
 * line apart), line breaks and links (http(s) addresses); HTML with only
 * inline markup keeps its line breaks; other HTML is shown as stored.
 */
export function descriptionHtml(description: string): string {
  if (!description.trim()) return "";
  if (isPlainText(description)) {
    // Stored text is entity-escaped by the sanitiser: back to text first.
    return plainTextToHtml(htmlToText(description)).replaceAll(
      "<a href=",
      '<a rel="noopener nofollow" href=',
    );
  }
  if (!BLOCK.test(description) && description.includes("\n")) {
    return description.trim().replace(/\r?\n/g, "<br>");
  }
  return description;
}
