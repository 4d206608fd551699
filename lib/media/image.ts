/**
 * Image type and size detection from the bytes themselves. Uploads are only
 * trusted by their content: a file name or a client-sent Content-Type proves
 * nothing. Every read is bounds-checked so hostile input cannot make the
 * parser throw, loop or read past the end.
 */

export type ImageKind = "jpeg" | "png" | "webp" | "gif";

export interface ImageInfo {
  kind: ImageKind;
  /** image/jpeg, image/png, image/webp or image/gif. */
  contentType: string;
  /** "jpg", "png", "webp" or "gif". */
  extension: string;
  /** Null only if the format was recognised but the size could not be read. */
  width: number | null;
  height: number | null;
}

const TYPES: Record<ImageKind, { contentType: string; extension: string }> = {
  jpeg: { contentType: "image/jpeg", extension: "jpg" },
  png: { contentType: "image/png", extension: "png" },
  webp: { contentType: "image/webp", extension: "webp" },
  gif: { contentType: "image/gif", extension: "gif" },
};

type Size = { width: number; height: number } | null;

/** Recognises an image by its bytes (never by file name) and reads its pixel size; null when not one of the four types. Never throws. */
export function sniffImage(bytes: Uint8Array): ImageInfo | null {
  let kind: ImageKind;
  let size: Size;
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) {
    kind = "jpeg";
    size = jpegSize(bytes);
  } else if (
    startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  ) {
    kind = "png";
    size = pngSize(bytes);
  } else if (isAscii(bytes, 0, "GIF87a") || isAscii(bytes, 0, "GIF89a")) {
    kind = "gif";
    size = gifSize(bytes);
  } else if (isAscii(bytes, 0, "RIFF") && isAscii(bytes, 8, "WEBP")) {
    kind = "webp";
    size = webpSize(bytes);
  } else {
    return null;
  }
  // A zero dimension is not a usable size (e.g. a JPEG deferring its height to a DNL marker).
  if (size !== null && (size.width <= 0 || size.height <= 0)) size = null;
  return {
    kind,
    ...TYPES[kind],
    width: size?.width ?? null,
    height: size?.height ?? null,
  };
}

function startsWith(bytes: Uint8Array, at: number, prefix: number[]): boolean {
  if (at + prefix.length > bytes.length) return false;
  return prefix.every((b, i) => bytes[at + i] === b);
}

function isAscii(bytes: Uint8Array, at: number, text: string): boolean {
  return startsWith(bytes, at, [...text].map((c) => c.charCodeAt(0)));
}

function has(bytes: Uint8Array, at: number, length: number): boolean {
  return at >= 0 && at + length <= bytes.length;
}

// The readers below assume the caller checked bounds with has().
function u16be(b: Uint8Array, at: number): number {
  return (b[at] << 8) | b[at + 1];
}

function u16le(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8);
}

function u24le(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8) | (b[at + 2] << 16);
}

function u32be(b: Uint8Array, at: number): number {
  // Multiplication instead of << 24 so values >= 2^31 stay positive.
  return b[at] * 0x1000000 + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);
}

function pngSize(b: Uint8Array): Size {
  // The IHDR chunk must come first: length (4), "IHDR", width (4), height (4).
  if (!has(b, 8, 16) || !isAscii(b, 12, "IHDR")) return null;
  return { width: u32be(b, 16), height: u32be(b, 20) };
}

function gifSize(b: Uint8Array): Size {
  // Logical screen descriptor right after the 6-byte signature.
  if (!has(b, 6, 4)) return null;
  return { width: u16le(b, 6), height: u16le(b, 8) };
}

function isStartOfFrame(marker: number): boolean {
  // C4 (DHT), C8 (JPG extension) and CC (DAC) share the range but are not frames.
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 &&
    marker !== 0xc8 && marker !== 0xcc;
}

function jpegSize(b: Uint8Array): Size {
  let i = 2; // after SOI
  while (i < b.length) {
    if (b[i] !== 0xff) return null; // not at a marker: corrupt
    // Any number of 0xFF fill bytes may precede a marker code.
    while (i < b.length && b[i] === 0xff) i++;
    if (i >= b.length) return null;
    const marker = b[i];
    i++;
    // Standalone markers carry no length field.
    if (
      marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)
    ) {
      continue;
    }
    // SOS (entropy-coded data follows), EOI, or a stuffed 0x00: no frame header before them.
    if (marker === 0xda || marker === 0xd9 || marker === 0x00) return null;
    if (!has(b, i, 2)) return null;
    const length = u16be(b, i);
    if (length < 2) return null; // the length includes itself
    if (isStartOfFrame(marker)) {
      // length (2), sample precision (1), height (2), width (2)
      if (length < 7 || !has(b, i, 7)) return null;
      return { height: u16be(b, i + 3), width: u16be(b, i + 5) };
    }
    i += length; // always advances by at least 2, so the loop ends
  }
  return null;
}

function webpSize(b: Uint8Array): Size {
  // First chunk after "RIFF" size "WEBP": fourcc (4), size (4), payload at 20.
  if (!has(b, 12, 8)) return null;
  const data = 20;
  if (isAscii(b, 12, "VP8 ")) {
    // Lossy: 3-byte frame tag, start code 9D 01 2A, then 14-bit width and height.
    if (!has(b, data, 10)) return null;
    if ((b[data] & 1) !== 0) return null; // must be a key frame
    if (!startsWith(b, data + 3, [0x9d, 0x01, 0x2a])) return null;
    return {
      width: u16le(b, data + 6) & 0x3fff,
      height: u16le(b, data + 8) & 0x3fff,
    };
  }
  if (isAscii(b, 12, "VP8L")) {
    // Lossless: signature 0x2F, then width-1 and height-1 as 14-bit fields packed LSB first.
    if (!has(b, data, 5) || b[data] !== 0x2f) return null;
    const b1 = b[data + 1], b2 = b[data + 2], b3 = b[data + 3];
    const b4 = b[data + 4];
    return {
      width: 1 + (b1 | ((b2 & 0x3f) << 8)),
      height: 1 + ((b2 >> 6) | (b3 << 2) | ((b4 & 0x0f) << 10)),
    };
  }
  if (isAscii(b, 12, "VP8X")) {
    // Extended: flags (1), reserved (3), canvas width-1 and height-1 as 24-bit values.
    if (!has(b, data, 10)) return null;
    return { width: 1 + u24le(b, data + 4), height: 1 + u24le(b, data + 7) };
  }
  return null;
}
