/** The reference page's style sheet (no font, nothing fetched). */

/** The CSS, inlined in a `<style>` under the response's nonce. */
export const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1b1e; --muted: #4d5158; --line: #d5d8de;
  --panel: #f5f6f8; --accent: #1d4ed8; --danger: #a4161a;
  --get: #13692e; --post: #1d4ed8; --put: #8a4500; --patch: #6b2fb3; --delete: #a4161a; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #141518; --fg: #ececf0; --muted: #b4b7be; --line: #383b42; --panel: #1c1e22;
    --accent: #9dbbff; --danger: #ff9b94;
    --get: #7ee2a0; --post: #9dbbff; --put: #ffc97a; --patch: #d3b5ff; --delete: #ff9b94; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; scroll-padding-top: 0.75rem; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-underline-offset: 0.15em; }
a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 2px; }
code, .path, .method, .status { font-family: ui-monospace, "SFMono-Regular", "Cascadia Mono", "DejaVu Sans Mono",
  Menlo, Consolas, monospace; }
code { font-size: 0.9em; overflow-wrap: anywhere; }
p { margin: 0.35rem 0; }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.5rem 0.75rem; z-index: 2; }
header.site, footer.site { padding: 0.85rem 1rem; }
header.site { border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; align-items: baseline;
  gap: 0.25rem 1.25rem; }
.brand { font-weight: 700; font-size: 1.15rem; }
.brand .version { font-weight: 400; color: var(--muted); font-size: 0.95rem; margin-left: 0.4rem; }
header.site ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1.1rem; margin: 0; padding: 0; }
footer.site { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.95rem; }
.shell { max-width: 84rem; margin: 0 auto; }
nav.toc { padding: 0.75rem 1rem 0; }
.toc-title { font-weight: 700; margin: 0 0 0.4rem; }
.toc ul { list-style: none; margin: 0; padding: 0; }
.toc > ul { display: flex; flex-wrap: wrap; gap: 0.4rem; }
.toc > ul > li > a { display: inline-block; padding: 0.2rem 0.65rem; border: 1px solid var(--line);
  border-radius: 999px; text-decoration: none; }
.toc > ul > li > a:hover { border-color: var(--accent); }
.toc .count { color: var(--muted); font-size: 0.85rem; }
.toc .ops { display: none; }
main { padding: 0 1rem 2rem; min-width: 0; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.35rem; line-height: 1.3; margin: 2.25rem 0 0.75rem; padding-bottom: 0.3rem;
  border-bottom: 2px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; line-height: 1.35; margin: 1.25rem 0 0.4rem; }
h4 { font-size: 0.95rem; margin: 1rem 0 0.35rem; }
.lede { font-size: 1.05rem; }
.op { border: 1px solid var(--line); border-radius: 0.75rem; padding: 0.25rem 1rem 0.9rem; margin: 1rem 0;
  background: var(--bg); }
.op-title { margin-top: 0.75rem; }
.op-title .method { margin-right: 0.35rem; vertical-align: 0.08em; }
.path { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
.method { display: inline-block; min-width: 4.2rem; text-align: center; font-size: 0.8rem; font-weight: 700;
  letter-spacing: 0.03em; padding: 0.1rem 0.4rem; border: 1.5px solid currentColor; border-radius: 0.35rem; }
.m-get { color: var(--get); } .m-post { color: var(--post); } .m-put { color: var(--put); }
.m-patch { color: var(--patch); } .m-delete { color: var(--delete); }
.summary { font-weight: 600; }
.desc, .limits, .enum, .example, .recursive { overflow-wrap: anywhere; }
.limits, .enum, .example, .recursive, .where, .req-note { color: var(--muted); font-size: 0.92rem; }
.deprecated { color: var(--danger); font-weight: 600; }
.op-facts { margin: 0.5rem 0; }
.op-facts dt { display: inline; font-weight: 600; }
.op-facts dd { display: inline; margin: 0; }
.block { border-top: 1px solid var(--line); margin-top: 0.75rem; }
.props { list-style: none; margin: 0.25rem 0; padding: 0; }
.props p { margin: 0.15rem 0; }
.props > li { padding: 0.45rem 0 0.45rem 0.75rem; border-left: 3px solid var(--line); margin: 0.35rem 0; }
.props .props { margin-left: 0.15rem; }
.field { margin: 0; }
.field > * { margin-right: 0.4rem; }
.field .name { font-weight: 700; font-size: 0.95rem; }
.type { color: var(--muted); font-size: 0.92rem; overflow-wrap: anywhere; min-width: 0; }
.type a { color: var(--accent); }
.req { color: var(--danger); font-size: 0.8rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; }
.content-types { margin-top: 0.5rem; }
.media-type { display: inline-block; max-width: 100%; background: var(--panel); border: 1px solid var(--line);
  border-radius: 0.3rem; padding: 0 0.3rem; }
.alternatives { list-style: none; padding: 0; }
.alt-label { font-weight: 600; }
.responses { list-style: none; margin: 0.25rem 0; padding: 0; }
.responses > li { display: flex; gap: 0.75rem; padding: 0.4rem 0; border-bottom: 1px solid var(--line); }
.responses > li:last-child { border-bottom: 0; }
.response-text { min-width: 0; overflow-wrap: anywhere; }
.response-body { display: block; font-size: 0.92rem; }
.status { font-weight: 700; flex: 0 0 2.6rem; }
.s2xx { color: var(--get); } .s3xx { color: var(--muted); } .s4xx { color: var(--put); }
.s5xx { color: var(--delete); }
.overview dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.35rem 1rem; }
.overview dt { font-weight: 600; }
.overview dd { margin: 0; overflow-wrap: anywhere; }
.schema-def { border-top: 1px solid var(--line); padding-top: 0.25rem; }
.schema-def h3 code { font-size: 1.05rem; }
.truncated { color: var(--muted); }
@media (max-width: 30rem) {
  .overview dl { grid-template-columns: minmax(0, 1fr); gap: 0.1rem; }
  .overview dd + dt { margin-top: 0.5rem; }
  .op { padding: 0.25rem 0.75rem 0.75rem; }
  .props > li { padding-left: 0.55rem; }
}
@media (min-width: 64rem) {
  .shell { display: grid; grid-template-columns: 19rem minmax(0, 1fr); gap: 2rem; padding: 0 1.5rem; }
  nav.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto;
    padding: 1rem 0.5rem 2rem 0; border-right: 1px solid var(--line); }
  .toc > ul { display: block; }
  .toc > ul > li { margin: 0 0 0.75rem; }
  .toc > ul > li > a { border: 0; padding: 0; font-weight: 700; border-radius: 0; }
  .toc .ops { display: block; margin-top: 0.2rem; }
  .toc .ops a { display: flex; gap: 0.5rem; align-items: baseline; padding: 0.12rem 0.3rem; border-radius: 0.3rem;
    text-decoration: none; font-size: 0.88rem; color: var(--fg); }
  .toc .ops a:hover { background: var(--panel); }
  .toc .ops .method { min-width: 3.6rem; font-size: 0.7rem; border-width: 1px; padding: 0 0.25rem; }
  .toc .ops .path { font-weight: 400; overflow-wrap: anywhere; }
  main { padding: 0 0 3rem; max-width: 58rem; }
  header.site { padding: 0.85rem 1.5rem; }
  footer.site { padding: 1rem 1.5rem 2rem; }
}
`;
