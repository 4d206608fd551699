/** Debian's Chromium for the browser tests, launched the same way everywhere. */
import assert from "node:assert/strict";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Fails (never skips) when Chromium is missing, naming the install command. */
export async function requireChromium(): Promise<void> {
  let present = false;
  try {
    present = (await Deno.stat(CHROMIUM)).isFile;
  } catch { /* missing */ }
  assert.ok(
    present,
    `${CHROMIUM} is missing: install Debian's chromium: apt-get install -y chromium`,
  );
}

/**
 * Headless Chromium with no background traffic (this machine's network is
 * closed; without these flags Chromium keeps trying Google's hosts).
 */
export async function launchChromium(): Promise<Browser> {
  await requireChromium();
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
