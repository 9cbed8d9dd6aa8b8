// SqliteRunStore when the better-sqlite3 package is installed but its addon was never built (npm 12
// skips its install script unless `allowScripts` allows it): the package is replaced by one that
// imports and then fails to load its addon, as the real one does.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunStoreError } from "@agentrx/executors";
import { afterAll, describe, expect, it, vi } from "vitest";
import { rejectionOf } from "../testing/conformance/conformance-context";
import { SqliteRunStore } from "./sqlite-run-store";

vi.mock("better-sqlite3", () => ({
  default: function Database() {
    throw new Error("Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node");
  },
}));

const dir = mkdtempSync(join(tmpdir(), "agentrx-unbuilt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteRunStore with an unbuilt better-sqlite3", () => {
  it("fails its first call with a RunStoreError that says the addon was never built and what to run", async () => {
    const store = new SqliteRunStore({ path: join(dir, "runs.db"), driver: "better-sqlite3" });
    const error = await rejectionOf(store.listRuns());
    expect(RunStoreError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^SqliteRunStore: the "better-sqlite3" package is installed, but its native addon was never built .*npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3.*driver: "node:sqlite"/,
    );
    // Not "cannot open <path>": the file is not at fault.
    expect(error.message).not.toContain("cannot open");
    await store.close();
  });
});
