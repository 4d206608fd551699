/**
 * Writing XML that stays well-formed whatever the text in it: every value is
 * escaped as character data, never put in CDATA sections, and characters that
 * XML 1.0 cannot carry are left out.
 */

/**
 * What an XML 1.0 document cannot contain, not even as a character reference:
 * C0 controls other than tab, line feed and carriage return, U+FFFE, U+FFFF
 * and unpaired surrogates.
 */
const NOT_XML =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// A parser turns a literal carriage return into a line feed; the reference
// keeps it.
const TEXT_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\r": "&#13;",
};

// Attribute values are normalised on reading (tab, line feed and carriage
// return become spaces) unless they are written as references.
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': "&quot;",
  "\t": "&#9;",
  "\n": "&#10;",
};

/** `value` as XML character data. */
export function xmlText(value: string): string {
  return value.replace(NOT_XML, "").replace(
    /[&<>\r]/g,
    (c) => TEXT_ESCAPES[c],
  );
}

/** `value` as the inside of a double-quoted XML attribute. */
export function xmlAttribute(value: string): string {
  return value.replace(NOT_XML, "").replace(
    /[&<>"\r\n\t]/g,
    (c) => ATTRIBUTE_ESCAPES[c],
  );
}

/** Attribute values by name; undefined ones are left out. */
export type XmlAttributes = Record<string, string | number | undefined>;

/**
 * An element. `content` is XML already written by these functions (elements or
 * escaped text), one string per child; empty strings are skipped.
 */
export function xmlElement(
  name: string,
  attributes: XmlAttributes,
  content: string | string[] = "",
): string {
  let attrs = "";
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) {
      attrs += ` ${key}="${xmlAttribute(String(value))}"`;
    }
  }
  const inner = Array.isArray(content)
    ? content.filter(Boolean).join("\n")
    : content;
  return inner === ""
    ? `<${name}${attrs}/>`
    : `<${name}${attrs}>${inner}</${name}>`;
}

/** An element holding only text. */
export function xmlTextElement(
  name: string,
  text: string,
  attributes: XmlAttributes = {},
): string {
  return xmlElement(name, attributes, xmlText(text));
}

/** The XML declaration and the root element. */
export function xmlDocument(root: string): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n${root}\n`;
}
