import assert from "node:assert/strict";
import { type ImageInfo, sniffImage } from "../lib/media/image.ts";
import {
  APP0_JFIF,
  ascii,
  be16,
  bytes,
  EOI,
  gif,
  jpeg,
  le32,
  png,
  PNG_SIGNATURE,
  riff,
  segment,
  sof,
  SOI,
  SOS,
  webpExtended,
  webpLossless,
  webpLossy,
} from "./images.ts";

function expectImage(
  input: Uint8Array,
  expected: Omit<ImageInfo, "contentType" | "extension">,
): void {
  const types = {
    jpeg: ["image/jpeg", "jpg"],
    png: ["image/png", "png"],
    webp: ["image/webp", "webp"],
    gif: ["image/gif", "gif"],
  } as const;
  const [contentType, extension] = types[expected.kind];
  assert.deepEqual(sniffImage(input), {
    ...expected,
    contentType,
    extension,
  });
}

Deno.test("sniffImage: PNG size from IHDR", () => {
  expectImage(png(640, 480), { kind: "png", width: 640, height: 480 });
  expectImage(png(1, 65537), { kind: "png", width: 1, height: 65537 });
  // Values above 2^31 must not turn negative.
  const big = png(0x80000001, 2);
  assert.equal(sniffImage(big)?.width, 0x80000001);
});

Deno.test("sniffImage: GIF87a and GIF89a logical screen size", () => {
  expectImage(gif(3, 5), { kind: "gif", width: 3, height: 5 });
  const gif87 = gif(300, 2);
  gif87.set(ascii("GIF87a"));
  expectImage(gif87, { kind: "gif", width: 300, height: 2 });
});

Deno.test("sniffImage: baseline and progressive JPEG", () => {
  expectImage(jpeg(0xc0, 1024, 768), {
    kind: "jpeg",
    width: 1024,
    height: 768,
  });
  expectImage(jpeg(0xc2, 800, 600), { kind: "jpeg", width: 800, height: 600 });
  expectImage(jpeg(0xc1, 7, 9), { kind: "jpeg", width: 7, height: 9 });
  expectImage(jpeg(0xcf, 65535, 1), { kind: "jpeg", width: 65535, height: 1 });
});

Deno.test("sniffImage: JPEG walk skips segments, fill bytes and standalone markers", () => {
  // DQT and DHT (C4, which sits in the SOF range but is not a frame) come first,
  // with payloads that would read as a bogus size if mistaken for a frame.
  const dht = segment(0xc4, [0, ...be16(11), ...be16(22), 0, 0, 0]);
  const dac = segment(0xcc, [0, ...be16(33), ...be16(44)]);
  const dqt = segment(0xdb, new Array(65).fill(1));
  const exif = segment(0xe1, [
    ...ascii("Exif"),
    0,
    0,
    ...new Array(300).fill(0xff),
  ]);
  const input = bytes(
    SOI,
    exif,
    [0xff, 0xff, 0xff], // fill bytes before the next marker
    dqt,
    [0xff, 0xd0], // a stray RST0
    [0xff, 0xd8], // and a stray SOI
    dht,
    dac,
    sof(0xc0, 1920, 1080),
    SOS,
    EOI,
  );
  expectImage(input, { kind: "jpeg", width: 1920, height: 1080 });
});

Deno.test("sniffImage: JPEG without a readable frame header has null size", () => {
  // SOS before any SOF, a zero-length segment, garbage where a marker should be, EOI only.
  for (
    const input of [
      bytes(SOI, APP0_JFIF, SOS, sof(0xc0, 10, 10)),
      bytes(SOI, [0xff, 0xe0, 0, 0], sof(0xc0, 10, 10)),
      bytes(SOI, APP0_JFIF, [0x12, 0x34], sof(0xc0, 10, 10)),
      bytes(SOI, EOI),
      bytes([0xff, 0xd8, 0xff]),
      bytes(SOI, sof(0xc0, 640, 0)), // height deferred to DNL
      bytes(SOI, segment(0xe0, [1, 2, 3]).slice(0, 4), new Array(20).fill(0)),
    ]
  ) {
    expectImage(input, { kind: "jpeg", width: null, height: null });
  }
});

Deno.test("sniffImage: WebP lossy, lossless and extended", () => {
  expectImage(webpLossy(550, 368), { kind: "webp", width: 550, height: 368 });
  expectImage(webpLossy(16383, 1), { kind: "webp", width: 16383, height: 1 });
  expectImage(webpLossless(386, 395), {
    kind: "webp",
    width: 386,
    height: 395,
  });
  expectImage(webpLossless(16384, 16384), {
    kind: "webp",
    width: 16384,
    height: 16384,
  });
  expectImage(webpLossless(1, 2), { kind: "webp", width: 1, height: 2 });
  expectImage(webpExtended(400, 300), {
    kind: "webp",
    width: 400,
    height: 300,
  });
  expectImage(webpExtended(1 << 24, 70000), {
    kind: "webp",
    width: 1 << 24,
    height: 70000,
  });
});

Deno.test("sniffImage: WebP with an unreadable first chunk has null size", () => {
  const notKeyFrame = webpLossy(10, 10);
  notKeyFrame[20] |= 1;
  const badSignature = webpLossless(10, 10);
  badSignature[20] = 0x00;
  for (
    const input of [
      notKeyFrame,
      badSignature,
      riff("ALPH", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      bytes(ascii("RIFF"), le32(4), ascii("WEBP")),
    ]
  ) {
    expectImage(input, { kind: "webp", width: null, height: null });
  }
});

Deno.test("sniffImage: non-images are null", () => {
  const enc = new TextEncoder();
  for (
    const text of [
      "",
      "hello world",
      "<!DOCTYPE html><html><body>hi</body></html>",
      "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj",
      '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      "GIF88a....",
      "RIFF\x10\x00\x00\x00WAVEfmt ",
    ]
  ) {
    assert.equal(sniffImage(enc.encode(text)), null, JSON.stringify(text));
  }
  assert.equal(sniffImage(new Uint8Array([0xff, 0xd8])), null);
  assert.equal(sniffImage(new Uint8Array(PNG_SIGNATURE.slice(0, 7))), null);
  // A zip (e.g. a disguised .png) and a BMP.
  assert.equal(
    sniffImage(bytes(ascii("PK"), [3, 4], new Array(30).fill(0))),
    null,
  );
  assert.equal(sniffImage(bytes(ascii("BM"), new Array(60).fill(0))), null);
});

Deno.test("sniffImage: truncated PNG IHDR is png with null size", () => {
  const full = png(640, 480);
  for (const cut of [8, 12, 16, 20, 23]) {
    expectImage(full.slice(0, cut), { kind: "png", width: null, height: null });
  }
  // Enough bytes, but the first chunk is not IHDR.
  const wrong = png(640, 480);
  wrong.set(ascii("IDAT"), 12);
  expectImage(wrong, { kind: "png", width: null, height: null });
});

Deno.test("sniffImage: reads inside a subarray view only", () => {
  // The image sits in the middle of a larger buffer; bytes around it must not matter.
  const outer = new Uint8Array(200).fill(0xff);
  const image = gif(12, 34);
  outer.set(image, 50);
  expectImage(outer.subarray(50, 50 + image.length), {
    kind: "gif",
    width: 12,
    height: 34,
  });
  // Truncated view: the real bytes exist beyond the view's end but must not be read.
  const full = jpeg(0xc0, 1024, 768);
  const host = new Uint8Array(full.length + 10);
  host.set(full, 10);
  const cut = host.subarray(10, 10 + full.length - 20);
  expectImage(cut, { kind: "jpeg", width: null, height: null });
});

/** A small seeded PRNG (mulberry32) so a failing case can be reproduced. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkResult(input: Uint8Array, label: string): void {
  let info: ImageInfo | null;
  try {
    info = sniffImage(input);
  } catch (error) {
    throw new Error(`sniffImage threw on ${label}: ${error}`);
  }
  if (info === null) return;
  for (const value of [info.width, info.height]) {
    assert.ok(
      value === null || (Number.isInteger(value) && value > 0),
      `${label}: bad dimension ${value}`,
    );
  }
  assert.equal(info.width === null, info.height === null, label);
}

Deno.test("sniffImage: fuzz never throws and never returns junk sizes", () => {
  const random = prng(0x5eed);
  const byte = () => Math.floor(random() * 256);
  const valid = [
    png(640, 480),
    gif(3, 5),
    jpeg(0xc0, 1024, 768),
    jpeg(0xc2, 800, 600),
    webpLossy(550, 368),
    webpLossless(386, 395),
    webpExtended(400, 300),
  ];
  for (let n = 0; n < 2000; n++) {
    const input = Uint8Array.from({ length: Math.floor(random() * 65) }, byte);
    checkResult(input, `random #${n}`);
  }
  // Random tails behind each magic, so the deeper parsers get exercised too.
  const magics = [
    [0xff, 0xd8, 0xff],
    PNG_SIGNATURE,
    ascii("GIF89a"),
    [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8 ")],
    [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8L")],
    [...ascii("RIFF"), 0, 0, 0, 0, ...ascii("WEBPVP8X")],
  ];
  for (let n = 0; n < 2000; n++) {
    const magic = magics[n % magics.length];
    const tail = Array.from({ length: Math.floor(random() * 65) }, byte);
    const input = bytes(magic, tail);
    checkResult(input, `magic #${n}`);
    assert.notEqual(sniffImage(input), null);
  }
  // JPEG marker soup: random segments of 0xFF-heavy bytes.
  for (let n = 0; n < 2000; n++) {
    const tail = Array.from(
      { length: Math.floor(random() * 65) },
      () => random() < 0.4 ? 0xff : byte(),
    );
    checkResult(bytes(SOI, tail), `jpeg soup #${n}`);
  }
  for (const [i, image] of valid.entries()) {
    assert.notEqual(sniffImage(image)?.width, null, `valid #${i}`);
    for (let cut = 0; cut <= image.length; cut++) {
      checkResult(image.slice(0, cut), `valid #${i} cut at ${cut}`);
    }
    // Single-byte corruptions anywhere.
    for (let n = 0; n < 300; n++) {
      const copy = image.slice();
      copy[Math.floor(random() * copy.length)] = byte();
      checkResult(copy, `valid #${i} mutation #${n}`);
    }
  }
});
