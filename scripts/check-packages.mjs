// Runs `publint --strict` and `attw --pack` for every published package (packages/* and the
// example community packages) and fails when either reports a problem.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const roots = ["packages", "examples"];
const dirs = roots.flatMap((root) =>
  existsSync(root)
    ? readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "package.json")))
        .map((entry) => join(root, entry.name))
    : [],
);

let failed = 0;
for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (pkg.private) continue;
  for (const [cmd, args] of [
    ["publint", ["--strict"]],
    ["attw", ["--pack", ".", "--format", "table-flipped"]],
  ]) {
    try {
      execFileSync("npx", ["--no-install", cmd, ...args], { cwd: dir, stdio: "pipe", encoding: "utf8" });
      console.log(`ok   ${cmd} ${pkg.name}`);
    } catch (error) {
      failed++;
      console.error(`FAIL ${cmd} ${pkg.name}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    }
  }
}
if (failed) {
  console.error(`${failed} package check(s) failed.`);
  process.exit(1);
}
console.log(`All ${dirs.length} package(s) pass publint --strict and attw --pack.`);
