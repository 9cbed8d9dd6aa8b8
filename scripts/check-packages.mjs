// Runs `publint --strict` and `attw --pack` for every published package (packages/* and the
// example community packages) and fails when either reports a problem, or when a package's type
// declarations import a package its users may not have: one that is neither a dependency nor a
// required peer dependency (an optional peer, say), which a project without it fails to compile
// (TS2307) unless it skips library checks.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";

const roots = ["packages", "examples"];
const dirs = roots.flatMap((root) =>
  existsSync(root)
    ? readdirSync(root, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "package.json")))
        .map((entry) => join(root, entry.name))
    : [],
);

/** The package names the declaration files under `dir` import (`from "x"`, `import("x")`, `require("x")`), by file. */
function typeImports(dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.d\.(c|m)?ts$/.test(entry.name)) {
        const text = readFileSync(path, "utf8");
        for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^"'\n]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)) {
          const specifier = match[1] ?? match[2] ?? match[3];
          if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
          const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0];
          found.push({ file: path, name });
        }
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return found;
}

let failed = 0;
for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (pkg.private) continue;
  const optional = (name) => pkg.peerDependenciesMeta?.[name]?.optional === true;
  const available = (name) => name === pkg.name || name in (pkg.dependencies ?? {}) || (name in (pkg.peerDependencies ?? {}) && !optional(name));
  const unavailable = typeImports(join(dir, "dist")).filter(({ name }) => !available(name) && !builtinModules.includes(name));
  if (unavailable.length > 0) {
    failed++;
    const lines = [...new Set(unavailable.map(({ file, name }) => `  ${file} imports ${name}${optional(name) ? " (an optional peer)" : ""}`))];
    console.error(`FAIL types ${pkg.name}: its declarations import packages its users may not have installed\n${lines.join("\n")}`);
  } else {
    console.log(`ok   types ${pkg.name}`);
  }
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
