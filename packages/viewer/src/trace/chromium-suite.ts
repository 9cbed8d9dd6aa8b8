// Test-only (not exported by the package): the set-up of a browser test file, for vitest suites
// (the screenshot scripts use browser-test-helpers without vitest).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchChromium, skipWithoutChromium } from "./browser-test-helpers";

/** A suite's Chromium (see {@link chromiumSuite}). */
export interface ChromiumSuite {
  /** Whether the suite is skipped (no Chromium, outside CI). */
  skip: boolean;
  /** A temporary folder for the suite's files, removed after it. */
  dir: string;
  /** The browser, once the suite's `beforeAll` launched it. */
  browser(): BrowserContext;
}

/**
 * Launches Chromium before a suite's tests (unless it is skipped) and closes it after them, with
 * a temporary folder for the suite's files: the set-up every browser test file repeats. Call it at
 * the top of the file.
 */
export function chromiumSuite(label: string, dirPrefix: string): ChromiumSuite {
  const skip = skipWithoutChromium(label);
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  let launched: Awaited<ReturnType<typeof launchChromium>> | undefined;
  beforeAll(async () => {
    if (!skip) launched = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await launched?.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    skip,
    dir,
    browser: () => {
      if (launched === undefined) throw new Error(`${label}: Chromium is not launched (the suite is skipped, or its beforeAll failed)`);
      return launched;
    },
  };
}

