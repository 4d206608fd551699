/** Tiny hand-assembled images (headers only) for the media tests. */

export const ascii = (text: string): number[] =>
  [...text].map((c) => c.charCodeAt(0));
export const be16 = (n: number): number[] => [(n >> 8) & 0xff, n & 0xff];
export const le16 = (n: number): number[] => [n & 0xff, (n >> 8) & 0xff];
export const le24 = (n: number): number[] => [
  n & 0xff,
  (n >> 8) & 0xff,
  (n >> 16) & 0xff,
];
export const be32 = (n: number): number[] => [
  (n >>> 24) & 0xff,
  (n >> 16) & 0xff,
  (n >> 8) & 0xff,
  n & 0xff,
];
export const le32 = (
  n: number,
): number[] => [...le16(n & 0xffff), ...le16(n >>> 16)];
export const bytes = (...parts: number[][]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(parts.flat());

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG signature and IHDR chunk, then `padding` zero bytes. */
export function png(
  width: number,
  height: number,
  padding = 0,
): Uint8Array<ArrayBuffer> {
  // IHDR: width, height, bit depth 8, colour type 2, compression, filter, interlace; CRC not checked.
  return bytes(
    PNG_SIGNATURE,
    be32(13),
    ascii("IHDR"),
    be32(width),
    be32(height),
    [8, 2, 0, 0, 0],
    [0, 0, 0, 0],
    new Array(padding).fill(0),
  );
}

export function gif(width: number, height: number): Uint8Array<ArrayBuffer> {
  return bytes(ascii("GIF89a"), le16(width), le16(height), [0, 0, 0], [0x3b]);
}

/** A JPEG segment: marker, then a length that counts itself. */
export function segment(marker: number, payload: number[]): number[] {
  return [0xff, marker, ...be16(payload.length + 2), ...payload];
}

export function sof(marker: number, width: number, height: number): number[] {
  // precision 8, height, width, one component
  return segment(marker, [8, ...be16(height), ...be16(width), 1, 1, 0x11, 0]);
}

export const APP0_JFIF = segment(0xe0, [
  ...ascii("JFIF"),
  0,
  1,
  1,
  0,
  ...be16(72),
  ...be16(72),
  0,
  0,
]);
export const SOI = [0xff, 0xd8];
export const EOI = [0xff, 0xd9];
export const SOS = segment(0xda, [1, 1, 0, 0, 0x3f, 0]);

export function jpeg(
  sofMarker: number,
  width: number,
  height: number,
): Uint8Array<ArrayBuffer> {
  return bytes(SOI, APP0_JFIF, sof(sofMarker, width, height), SOS, [0], EOI);
}

export function riff(
  chunk: string,
  payload: number[],
): Uint8Array<ArrayBuffer> {
  const body = [...ascii("WEBP"), ...ascii(chunk), ...le32(payload.length)];
  return bytes(
    ascii("RIFF"),
    le32(body.length + payload.length),
    body,
    payload,
  );
}

export function webpLossy(
  width: number,
  height: number,
): Uint8Array<ArrayBuffer> {
  // Frame tag (key frame, shown), start code, 14-bit dims with a 2-bit scale on top.
  return riff("VP8 ", [
    0x10,
    0x02,
    0x00,
    0x9d,
    0x01,
    0x2a,
    ...le16(width | 0x4000),
    ...le16(height | 0x8000),
    0,
    0,
  ]);
}

export function webpLossless(
  width: number,
  height: number,
): Uint8Array<ArrayBuffer> {
  // 14 bits width-1, 14 bits height-1, alpha flag, 3-bit version, packed LSB first.
  const bits = (width - 1) | ((height - 1) << 14) | (1 << 28);
  return riff("VP8L", [0x2f, ...le32(bits), 0, 0]);
}

export function webpExtended(
  width: number,
  height: number,
): Uint8Array<ArrayBuffer> {
  return riff("VP8X", [0x10, 0, 0, 0, ...le24(width - 1), ...le24(height - 1)]);
}

/** CRC-32 (PNG's chunk checksum). */
function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A PNG chunk with its length and CRC. */
function chunk(type: string, data: Uint8Array): number[] {
  const typed = new Uint8Array([...ascii(type), ...data]);
  return [...be32(data.length), ...typed, ...be32(crc32(typed))];
}

/**
 * A complete PNG that browsers draw: `width` x `height`, left half one
 * colour and right half another (RGB), so a focal point can be seen.
 */
export async function solidPng(
  width: number,
  height: number,
  left: [number, number, number],
  right: [number, number, number],
): Promise<Uint8Array<ArrayBuffer>> {
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < width; x++) {
      rows.push(...(x < width / 2 ? left : right));
    }
  }
  const zlib = new Uint8Array(
    await new Response(
      new Blob([new Uint8Array(rows)]).stream().pipeThrough(
        new CompressionStream("deflate"),
      ),
    ).arrayBuffer(),
  );
  const header = new Uint8Array([
    ...be32(width),
    ...be32(height),
    8, // bit depth
    2, // RGB
    0,
    0,
    0,
  ]);
  return bytes(
    PNG_SIGNATURE,
    chunk("IHDR", header),
    chunk("IDAT", zlib),
    chunk("IEND", new Uint8Array()),
  );
}
