/** The HTML shell of server-rendered pages: no scripts, one nonce'd stylesheet. */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1b1e; --accent: #2457c5; --danger: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 1.05rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  background: var(--bg); color: var(--fg); }
main { max-width: 32rem; margin: 0 auto; padding: 1.25rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 0; }
.card { border: 1px solid #8885; border-radius: 0.75rem; padding: 1rem; margin: 1rem 0; }
.muted { opacity: 0.8; font-size: 0.95rem; }
.error { border: 1px solid var(--danger); color: var(--danger); border-radius: 0.5rem; padding: 0.75rem; }
label { display: block; font-weight: 600; margin-top: 0.9rem; }
input[type=email], input[type=password], input[type=text], input[type=url],
input[type=datetime-local], textarea { width: 100%; font: inherit; padding: 0.65rem; margin-top: 0.3rem;
  border: 1px solid #8889; border-radius: 0.5rem; background: Canvas; color: CanvasText; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; flex-wrap: wrap; }
button { font: inherit; font-weight: 600; padding: 0.7rem 1.2rem; border-radius: 0.5rem; min-height: 2.75rem;
  cursor: pointer; flex: 1 1 8rem; }
button.approve { background: var(--accent); color: #fff; border: 1px solid var(--accent); }
button.deny { background: transparent; color: inherit; border: 1px solid #8889; }
button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
code { overflow-wrap: anywhere; }
ul.queue { list-style: none; padding: 0; margin: 0; }
textarea { min-height: 8rem; }
.hint { opacity: 0.8; font-size: 0.95rem; margin: 0.2rem 0 0; }
.field-error { color: var(--danger); margin: 0.3rem 0 0; font-weight: 600; }
textarea:focus-visible, button:focus-visible, select:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
main.wide { max-width: 60rem; }
select { font: inherit; padding: 0.55rem; margin-top: 0.3rem; border: 1px solid #8889; border-radius: 0.5rem;
  background: Canvas; color: CanvasText; max-width: 100%; }
header.site { border-bottom: 1px solid #8885; padding: 0.6rem 1.25rem; }
header.site .brand { font-weight: 700; text-decoration: none; color: inherit; }
header.site nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; padding: 0; margin: 0.4rem 0; }
header.site nav a { color: inherit; }
header.site nav a[aria-current=page] { font-weight: 700; text-decoration-thickness: 3px; }
form.signout { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
button.link { background: none; border: none; padding: 0.2rem; min-height: 2.75rem; color: inherit;
  text-decoration: underline; flex: 0 0 auto; font-weight: 400; }
a { color: var(--accent); }
footer.site { border-top: 1px solid #8885; padding: 0.5rem 1.25rem 1.5rem; }
.languages ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0 1rem; margin: 0; padding: 0; }
.languages a { display: inline-block; padding: 0.4rem 0; }
.languages a[aria-current] { color: inherit; font-weight: 700; text-decoration: none; }
@media (prefers-color-scheme: dark) { :root { --bg: #141518; --fg: #ececf0; --accent: #8fb0ff; --danger: #ff8a80; }
  button.approve { color: #10131a; } }
`;

/** A complete page; `nonce` must match the response's CSP `style-src`. */
export function Layout(
  props: {
    title: string;
    nonce: string;
    lang?: string;
    /** Shown above the main column (the interface's navigation). */
    header?: Child;
    /** Shown below it (the language switch). */
    footer?: Child;
    /** A wider main column, for tables. */
    wide?: boolean;
    children?: Child;
  },
) {
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={props.lang ?? "en"}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <meta name="robots" content="noindex" />
          <title>{props.title}</title>
          <style nonce={props.nonce}>{raw(STYLE)}</style>
        </head>
        <body>
          {props.header}
          <main class={props.wide ? "wide" : undefined}>{props.children}</main>
          {props.footer}
        </body>
      </html>
    </>
  );
}
