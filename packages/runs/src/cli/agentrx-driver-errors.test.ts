// `agentrx` when a store's driver cannot load: better-sqlite3 installed but its addon never built
// (npm 12 skips its install script unless `allowScripts` allows it), or pg broken. One line that
// says what to run, without the error class. Where the runtime has node:sqlite (Node.js 22.13+),
// the command reads SQLite files with it instead, with a warning.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { nodeSqliteHint } from "./node-sqlite-hint";
import { runCli } from "./run-cli";

vi.mock("better-sqlite3", () => ({
  default: function Database() {
    throw new Error("Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node");
  },
}));

// The mock's error reaches the command wrapped by vitest: pg "could not be loaded".
vi.mock("pg", () => {
  throw new Error("pg is broken");
});

const nodeSqlite = await import("node:sqlite" as string).then(
  () => true,
  () => false,
);
const dir = mkdtempSync(join(tmpdir(), "agentrx-unbuilt-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("agentrx with an unbuilt better-sqlite3", () => {
  it(nodeSqlite ? "reads the file with node:sqlite instead" : "says in one line that the addon was never built and what to run", async () => {
    // A run store's file, written with the runtime's node:sqlite where there is one; an empty file is enough to fail on.
    const path = join(dir, "runs.db");
    let stdout = "";
    let stderr = "";
    const io = { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: (text: string) => (stderr += text) }, env: { NO_COLOR: "1" }, cwd: dir };
    if (nodeSqlite) {
      const { SqliteRunStore } = await import("../sqlite/index");
      const store = new SqliteRunStore({ path, driver: "node:sqlite" });
      await store.listRuns();
      await store.close();
      expect(await runCli(["runs", "--db", path], io)).toBe(0);
      expect(stdout).toMatch(/^No runs in SQLite runs\.db yet/);
      return;
    }
    const { writeFileSync } = await import("node:fs");
    writeFileSync(path, "");
    expect(await runCli(["runs", "--db", path], io)).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^agentrx: the "better-sqlite3" package is installed, but its native addon was never built .*npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3/);
    // No store option to pass: what this Node.js needs for agentrx to read the file with node:sqlite.
    expect(stderr).toContain(nodeSqliteHint(process.versions.node));
    expect(stderr).not.toMatch(/RunStoreError|cannot open|driver: "node:sqlite"/);
  });
});

describe("agentrx with a pg that cannot load", () => {
  it("says so in one line, without the error's class or a doubled agentrx", async () => {
    let stderr = "";
    const io = { stdout: { write: () => undefined }, stderr: { write: (text: string) => (stderr += text) }, env: {}, cwd: dir };
    expect(await runCli(["runs", "--db", "postgres://app@127.0.0.1:1/app"], io)).toBe(1);
    expect(stderr).toMatch(/^agentrx: the "pg" package could not be loaded \(.*\)\. Reinstall it: npm install pg\n$/);
    expect(stderr).not.toMatch(/RunStoreError|agentrx: agentrx/);
  });
});
