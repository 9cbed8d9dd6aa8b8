// Test-only: headless Chromium for the browser tests under test/, through playwright-core and the
// system's Chromium (Debian's `chromium` package), with the same path, flags and skip rule as the
// trace viewer's browser tests: skipped with one line when Chromium is missing, failed in CI.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Where the tests look for Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether the browser tests of `label` must be skipped: Chromium is missing and `CI` is not set
 * (one console line says why). In CI a missing Chromium fails the tests instead.
 */
export function skipWithoutChromium(label: string): boolean {
  if (existsSync(CHROMIUM) || process.env.CI) return false;
  console.warn(`Skipping the ${label} tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium; with CI set, this fails instead).`);
  return true;
}

/** A headless Chromium with a fresh, temporary profile. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`The browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
