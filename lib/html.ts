/** Escaping text for HTML built outside JSX (feed entries, AP content). */

/** `text` with `& < > " '` escaped, safe inside elements and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}
