/**
 * The look of an embedded list, the same in the `<quando-events>` element's
 * shadow root and on the `/embed` page: a box (`.qe`) in light, dark or the
 * visitor's scheme (`.qe.light`, `.qe.dark`, `.qe.auto`), its heading (`.h`),
 * the list of events (`.t` title, `.b` status badge, `.m` when and where, `.x`
 * a cancelled event) and the link to the instance (`.more`).
 */

const LIGHT = "--bg:#fff;--fg:#1a1b1e;--mu:#4d5158;--li:#d5d8de;" +
  "--ac:#1d4ed8;--da:#a4161a;--wa:#8a4500;color-scheme:light";
const DARK = "--bg:#141518;--fg:#ececf0;--mu:#b4b7be;--li:#383b42;" +
  "--ac:#9dbbff;--da:#ff9b94;--wa:#ffc97a;color-scheme:dark";

/** The stylesheet (compact: it travels in every copy of the script too). */
export const EMBED_STYLE = [
  `.qe{${LIGHT};box-sizing:border-box;background:var(--bg);color:var(--fg);` +
  "font:1rem/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;" +
  "padding:.8rem 1rem;border:1px solid var(--li);border-radius:.6rem}",
  `.qe.dark{${DARK}}`,
  `@media (prefers-color-scheme:dark){.qe.auto{${DARK}}}`,
  ".qe .h{font-size:1.05rem;line-height:1.3;margin:0 0 .2rem;font-weight:700}",
  ".qe ol{list-style:none;margin:0;padding:0}",
  ".qe li{padding:.55rem 0;border-bottom:1px solid var(--li)}",
  ".qe li:last-child{border-bottom:0}",
  ".qe a{color:var(--ac);text-underline-offset:.15em}",
  ".qe a:focus-visible{outline:3px solid var(--ac);outline-offset:2px}",
  ".qe .t{font-weight:600;overflow-wrap:anywhere}",
  ".qe .m{display:block;color:var(--mu);font-size:.9rem;" +
  "overflow-wrap:anywhere}",
  ".qe .b{display:inline-block;font-size:.78rem;font-weight:700;" +
  "line-height:1.4;padding:0 .4rem;border:1px solid currentColor;" +
  "border-radius:.35rem;margin-inline-start:.35rem;vertical-align:.1em}",
  // Cancelled (c), or another change to look at (w).
  ".qe .c{color:var(--da)}.qe .w{color:var(--wa)}",
  ".qe .x .t{text-decoration:line-through}",
  ".qe .note{margin:.4rem 0;color:var(--mu)}",
  ".qe .more{margin:.5rem 0 0;font-size:.9rem}",
].join("");
