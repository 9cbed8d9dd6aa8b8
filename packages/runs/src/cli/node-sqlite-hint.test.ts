// What agentrx says about node:sqlite when better-sqlite3 cannot load, per Node.js version: it has
// no driver option, and node:sqlite is missing before 22.5 and behind a flag until 22.13 (23.4).
import { describe, expect, it } from "vitest";
import { nodeSqliteHint } from "./node-sqlite-hint";

describe("nodeSqliteHint", () => {
  it("on a Node.js without node:sqlite (before 22.5), says to run agentrx on 22.13 or later and names this version", () => {
    for (const version of ["20.19.0", "20.20.2", "21.7.3", "22.4.1"]) {
      expect(nodeSqliteHint(version)).toBe(`Or run agentrx on Node.js 22.13 or later, which has the built-in node:sqlite that agentrx then reads the file with instead (this is Node.js ${version}, which has none).`);
    }
  });

  it("on a Node.js with node:sqlite behind a flag (22.5 to 22.12, 23.0 to 23.3), names the flag", () => {
    for (const version of ["22.5.0", "22.12.0", "23.0.0", "23.3.0"]) {
      expect(nodeSqliteHint(version)).toMatch(new RegExp(`^Or run agentrx with NODE_OPTIONS=--experimental-sqlite: Node\\.js ${version.replace(/\./g, "\\.")} then has the built-in node:sqlite`));
    }
  });

  it("on a Node.js with node:sqlite unflagged (22.13, 23.4 and later), adds nothing: agentrx tried it already", () => {
    for (const version of ["22.13.0", "22.20.1", "23.4.0", "24.0.0", "25.1.0"]) expect(nodeSqliteHint(version)).toBe("");
  });

  it("never tells the command's user to pass a store option", () => {
    for (const version of ["20.20.2", "22.9.0", "24.0.0"]) expect(nodeSqliteHint(version)).not.toContain("driver:");
  });
});
