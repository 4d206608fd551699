/** Public-page tests: the Bologna instance, the DOM subset they read, HTML checks. */
import { parse as parseHtml5 } from "parse5";
import { call, createTestApp, type TestContext } from "./app.ts";
import { type TestUser, userWithToken } from "./users.ts";

/** The parts of a linkedom element the page tests use (the type check has no DOM library). */
export interface El {
  id: string;
  nodeType: number;
  childNodes: Iterable<El>;
  textContent: string | null;
  innerHTML: string;
  className: string;
  classList: { contains(name: string): boolean };
  tagName: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): El | null;
  querySelectorAll(selector: string): Iterable<El>;
}

/**
 * An instance as the public-page tests know it: "Bologna Events" in
 * Europe/Rome, locale en-GB, with an admin and its token.
 */
export async function bolognaInstance(
  timezone = "Europe/Rome",
): Promise<{ ctx: TestContext; admin: TestUser & { token: string } }> {
  const ctx = await createTestApp();
  const admin = await userWithToken(ctx, "admin");
  const res = await call(ctx, "PUT", "/api/settings", {
    token: admin.token,
    json: {
      instance_title: "Bologna Events",
      instance_description: "What happens in town",
      instance_timezone: timezone,
      instance_locale: "en-GB",
    },
  });
  if (res.status !== 200) {
    throw new Error(`settings: ${res.status} ${await res.text()}`);
  }
  return { ctx, admin };
}

/** An element's text with its whitespace collapsed, as a reader sees it ("" for none). */
export function text(el: { textContent: string | null } | null): string {
  return (el?.textContent ?? "").replace(/\s+/g, " ").trim();
}

/** parse5's parser errors for a whole document (none for valid HTML). */
export function parseErrors(html: string): string[] {
  const errors: string[] = [];
  parseHtml5(html, {
    onParseError: (e) => errors.push(`${e.code} at ${e.startLine}`),
  });
  return errors;
}
