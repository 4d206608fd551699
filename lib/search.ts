/** Substring search that ignores case in every script, inside SQLite. */

/**
 * A GLOB pattern matching `text` anywhere, whatever the case: each letter
 * becomes a class of its lower and upper forms (`café` -> `*[cC][aA][fF][éÉ]*`).
 * SQLite's LIKE and lower() fold only ASCII letters; GLOB classes take any
 * character, so "CAFÉ" is found by "café". Wildcards in `text` are literal.
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
