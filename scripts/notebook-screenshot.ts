// Takes docs/notebook-run.png again: executes examples/notebooks/quickstart.ipynb offline with
// Jupyter's nbconvert on Deno's kernel (installed as "deno": `deno jupyter --install`), exports it to
// HTML, and photographs the run cell (the live table and the trace page in its frame) in Chromium.
// Needs `npm run build`, /usr/bin/jupyter and /usr/bin/chromium.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { launchChromiumBrowser } from "../packages/viewer/src/trace/browser-test-helpers";

const root = join(import.meta.dirname, "..");
const out = mkdtempSync(join(tmpdir(), "agentrx-notebook-shot-"));
const { OPENAI_API_KEY: _key, OPENAI_BASE_URL: _url, ...env } = process.env;
execFileSync("/usr/bin/jupyter", ["nbconvert", "--to", "html", "--execute", "quickstart.ipynb", "--output-dir", out, "--output", "quickstart"], {
  cwd: join(root, "examples", "notebooks"),
  env,
  stdio: "inherit",
});

const browser = await launchChromiumBrowser();
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 3200 } });
  await page.goto(pathToFileURL(join(out, "quickstart.html")).href);
  await page.frameLocator("iframe.agentrx-trace").locator('[role="treeitem"]').first().waitFor();
  const extent = (selector: string) =>
    page.locator(selector).first().evaluate((element) => {
      const box = element.getBoundingClientRect();
      return { top: box.top + window.scrollY, bottom: box.bottom + window.scrollY };
    });
  const table = await extent("div.agentrx-run");
  const frame = await extent("iframe.agentrx-trace");
  const top = table.top - 70; // the cell's code above the table
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(root, "docs", "notebook-run.png"), clip: { x: 0, y: top, width: 1100, height: frame.bottom - top + 10 } });
  console.log("Wrote docs/notebook-run.png");
} finally {
  await browser.close();
  rmSync(out, { recursive: true, force: true });
}
