/**
 * Which IP addresses Quando may connect to when it fetches a URL that
 * someone else chose (feeds, actors, images, inboxes): only public ones.
 * Our own table, complete for the IANA special-purpose registries: anything
 * that is not plainly public, or that cannot be parsed, is refused.
 */

/** An IPv4 range as [first address as a number, prefix length]. */
type V4Range = readonly [number, number];

/** A dotted quad as a 32-bit number, or null when `text` is not one. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function v4(cidr: string): V4Range {
  const [base, prefix] = cidr.split("/");
  return [parseIPv4(base)!, Number(prefix)];
}

/** IPv4 ranges that are not public (RFC 6890 and the IANA registry). */
const NON_PUBLIC_V4: readonly V4Range[] = [
  v4("0.0.0.0/8"), // "this network"
  v4("10.0.0.0/8"), // private
  v4("100.64.0.0/10"), // carrier-grade NAT
  v4("127.0.0.0/8"), // loopback
  v4("169.254.0.0/16"), // link-local (cloud metadata services)
  v4("172.16.0.0/12"), // private
  v4("192.0.0.0/24"), // IETF protocol assignments
  v4("192.0.2.0/24"), // documentation
  v4("192.88.99.0/24"), // 6to4 relay anycast (deprecated)
  v4("192.168.0.0/16"), // private
  v4("198.18.0.0/15"), // benchmarking
  v4("198.51.100.0/24"), // documentation
  v4("203.0.113.0/24"), // documentation
  v4("224.0.0.0/4"), // multicast
  v4("240.0.0.0/4"), // reserved, and 255.255.255.255 (broadcast)
];

function inV4Range(value: number, [base, prefix]: V4Range): boolean {
  if (prefix === 0) return true;
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(base / size);
}

/** Whether an IPv4 address (as a number) is public. */
function isPublicV4(value: number): boolean {
  return !NON_PUBLIC_V4.some((range) => inV4Range(value, range));
}

/**
 * An IPv6 address as its eight 16-bit words, or null when `text` is not one.
 * Accepts `::` compression, an IPv4 tail (`::ffff:1.2.3.4`) and drops a
 * zone id (`fe80::1%eth0`).
 */
export function parseIPv6(text: string): number[] | null {
  let address = text.toLowerCase();
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(address)) return null;
  let tail: number[] = [];
  const lastColon = address.lastIndexOf(":");
  if (address.includes(".")) {
    const quad = parseIPv4(address.slice(lastColon + 1));
    if (quad === null) return null;
    tail = [Math.floor(quad / 65536), quad % 65536];
    address = address.slice(0, lastColon + 1) + "0";
    // "0" stands in for the tail's first word; replaced below.
  }
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const words = (half: string) =>
    half === ""
      ? []
      : half.split(":").map((w) =>
        /^[0-9a-f]{1,4}$/.test(w) ? parseInt(w, 16) : NaN
      );
  const head = words(halves[0]);
  const rest = halves.length === 2 ? words(halves[1]) : [];
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length - (tail.length ? 1 : 0);
    if (missing < 1) return null;
    all = [...head, ...new Array(missing).fill(0), ...rest];
  } else {
    all = head;
  }
  if (tail.length) {
    // Drop the stand-in word, put the two words of the IPv4 tail.
    all = [...all.slice(0, -1), ...tail];
  }
  if (all.length !== 8 || all.some((w) => Number.isNaN(w))) return null;
  return all;
}

/** Whether the first `bits` bits of `words` are those of `prefix`. */
function inV6Range(words: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if (((words[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The IPv4 address carried in two words. */
function v4Of(high: number, low: number): number {
  return high * 65536 + low;
}

/** Whether an IPv6 address (as words) is public. */
function isPublicV6(w: number[]): boolean {
  // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96, what DNS64 answers
  // for IPv4-only hosts): public when the IPv4 address they carry is.
  if (inV6Range(w, [0, 0, 0, 0, 0, 0xffff], 96)) {
    return isPublicV4(v4Of(w[6], w[7]));
  }
  if (inV6Range(w, [0x64, 0xff9b, 0, 0, 0, 0], 96)) {
    return isPublicV4(v4Of(w[6], w[7]));
  }
  // Everything else outside global unicast (2000::/3) is refused: ::, ::1,
  // IPv4-compatible ::/96, 64:ff9b:1::/48, 100::/64 (discard), fc00::/7
  // (unique local), fe80::/10 (link-local), fec0::/10 (site-local,
  // deprecated), ff00::/8 (multicast) and the reserved rest.
  if (!inV6Range(w, [0x2000], 3)) return false;
  // Inside it: 2001::/23 (IETF protocol assignments, Teredo, ORCHID...),
  // 2001:db8::/32 and 3fff::/20 (documentation).
  if (inV6Range(w, [0x2001, 0], 23)) return false;
  if (inV6Range(w, [0x2001, 0x0db8], 32)) return false;
  if (inV6Range(w, [0x3fff, 0], 20)) return false;
  // 6to4 (2002::/16): public when the IPv4 address it carries is.
  if (inV6Range(w, [0x2002], 16)) return isPublicV4(v4Of(w[1], w[2]));
  return true;
}

/**
 * Whether `address` (an IPv4 or IPv6 literal, IPv6 with or without
 * brackets or a zone id) is a public address. Anything else is not.
 */
export function isPublicAddress(address: string): boolean {
  let text = address.trim();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const quad = parseIPv4(text);
  if (quad !== null) return isPublicV4(quad);
  const words = parseIPv6(text);
  if (words !== null) return isPublicV6(words);
  return false;
}

/**
 * The IP literal a URL's host is, or null when it is a name. WHATWG URL
 * has already turned IPv4 hosts written in decimal, hex or octal
 * (`http://2130706433/`, `http://0x7f.1/`) into dotted quads, and wraps
 * IPv6 hosts in brackets.
 */
export function hostLiteral(hostname: string): string | null {
  if (hostname.startsWith("[") && hostname.endsWith("]")) {
    return hostname.slice(1, -1);
  }
  if (parseIPv4(hostname) !== null) return hostname;
  // A host that is only digits, dots and hex letters but no dotted quad
  // (WHATWG would have normalised a real one): not a name either.
  if (/^[0-9.]+$/.test(hostname) || /^0x[0-9a-f.x]+$/i.test(hostname)) {
    return hostname;
  }
  return null;
}
