// Test-only: headless Chromium for the browser tests under test/, with the same path, flags and skip
// rule as the trace viewer's browser tests (skipped with one line when Chromium is missing, failed
// in CI): the helpers are theirs.
export { CHROMIUM, launchChromiumBrowser as launchChromium, skipWithoutChromium } from "../../packages/viewer/src/trace/browser-test-helpers";
