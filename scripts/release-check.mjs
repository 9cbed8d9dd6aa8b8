// What a release would do, without doing it: `changeset version` on a copy of the workspace's
// manifests and changesets (the repository is not touched), then `npm publish --dry-run` for every
// published package (their dist/ must be built). Run by .ci/run after the tests:
//
//   npm run release:check
//
// The real release (the workflow in .github/workflows/release.yml) runs `changeset version`, commits,
// then `changeset publish`, with provenance (publishConfig.provenance in every package).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const changeset = join(root, "node_modules", ".bin", "changeset");
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const packageDirs = ["packages", "examples"].flatMap((parent) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, parent, entry.name, "package.json")))
    .map((entry) => join(parent, entry.name)),
);

const copy = mkdtempSync(join(tmpdir(), "agentrx-release-"));
try {
  // The manifests, the changesets and their config: all `changeset version` reads and writes.
  cpSync(join(root, "package.json"), join(copy, "package.json"));
  cpSync(join(root, ".changeset"), join(copy, ".changeset"), { recursive: true });
  for (const dir of packageDirs) {
    mkdirSync(join(copy, dir), { recursive: true });
    cpSync(join(root, dir, "package.json"), join(copy, dir, "package.json"));
    if (existsSync(join(root, dir, "CHANGELOG.md"))) cpSync(join(root, dir, "CHANGELOG.md"), join(copy, dir, "CHANGELOG.md"));
  }
  execFileSync("git", ["init", "-q"], { cwd: copy });
  execFileSync(changeset, ["version"], { cwd: copy, stdio: "inherit" });
  const released = [];
  for (const dir of packageDirs) {
    const before = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    const after = JSON.parse(readFileSync(join(copy, dir, "package.json"), "utf8"));
    if (before.private) continue;
    if (!before.publishConfig?.provenance) throw new Error(`${before.name}: publishConfig.provenance must be true (${dir}/package.json)`);
    if (after.version !== before.version) released.push(`${after.name} ${before.version} -> ${after.version}`);
  }
  const fixed = packageDirs
    .filter((dir) => dir.startsWith("packages/"))
    .map((dir) => JSON.parse(readFileSync(join(copy, dir, "package.json"), "utf8")).version);
  if (new Set(fixed).size > 1) throw new Error(`the @agentrx packages are one fixed group but would get different versions: ${fixed.join(", ")}`);
  console.log(released.length ? `changeset version would release:\n  ${released.join("\n  ")}` : "changeset version: nothing to release");
} finally {
  rmSync(copy, { recursive: true, force: true });
}

for (const dir of packageDirs) {
  const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  if (manifest.private) continue;
  execFileSync("npm", ["publish", "--dry-run", "--loglevel=error"], { cwd: join(root, dir), stdio: ["ignore", "ignore", "inherit"] });
  console.log(`ok   npm publish --dry-run ${manifest.name}`);
}
console.log(`${rootManifest.name}: release check passed.`);
