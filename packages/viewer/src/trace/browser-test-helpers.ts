// Test-only (not exported by the package): headless Chromium for the browser tests (these and the
// repository's test/ ones), through playwright-core and the system's Chromium (Debian's `chromium`
// package); no browser download.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";

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

/** A headless Chromium with a fresh profile; `close()` also removes the profile. */
export async function launchChromium(options: { colorScheme?: "light" | "dark" } = {}): Promise<BrowserContext & { closeAll(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`The browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), "agentrx-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 800 },
    colorScheme: options.colorScheme ?? "light",
  });
  return Object.assign(context, {
    async closeAll() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  });
}

/** A headless Chromium without a persistent profile (each context is fresh). */
export async function launchChromiumBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`The browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
