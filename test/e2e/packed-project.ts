// Test-only helpers of packed-install.test.ts: a project of a newcomer's own, outside the
// repository, that installs the packages from the tarballs `npm pack` makes of them (what
// `npm run pack:local` puts in .packs/), as docs/quickstart.md#install says.
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { root } from "../../scripts/doc-blocks.mjs";

const execute = promisify(execFile);

/** What a command printed. */
export interface Output {
  stdout: string;
  stderr: string;
}

/** A command that failed or timed out: its exit code, signal and output, in the message. */
export class CommandError extends Error {
  constructor(
    command: string,
    readonly output: Output,
    detail: string,
  ) {
    super(`\`${command}\` failed (${detail}):\n${tail(`${output.stdout}\n${output.stderr}`)}`);
  }
}

function tail(text: string, lines = 40): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/**
 * The environment of the commands run in the project: the test's own, without what npm exports to
 * a script it runs (`npm test` runs vitest): `npm_config_local_prefix`, `npm_package_*` and the
 * like point at the repository, and an empty `npm_config_allow_scripts` would override the
 * project's own. Settings a person exports (`NPM_CONFIG_REGISTRY`, upper case) are kept, and so is
 * npm's cache (`npm_config_cache`): the one the repository's install filled. Nothing of the
 * environment selects a model: the quickstart runs offline.
 */
export function projectEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("npm_") && key !== "npm_config_cache") continue;
    if (key === "INIT_CWD" || key.startsWith("OPENAI_") || key.startsWith("AGENTRX_")) continue;
    env[key] = value;
  }
  return env;
}

/** Runs `command` in `cwd`; throws a {@link CommandError} with its output when it fails or outlasts `timeoutMs`. */
export async function run(command: string, args: string[], cwd: string, timeoutMs = 60_000): Promise<Output> {
  try {
    const { stdout, stderr } = await execute(command, args, { cwd, env: projectEnv(), timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return { stdout, stderr };
  } catch (error) {
    const failed = error as Error & Partial<Output> & { code?: number | string; signal?: string; killed?: boolean };
    const detail = failed.killed ? `killed after ${timeoutMs / 1000} s` : failed.signal ? `signal ${failed.signal}` : `exit code ${failed.code}`;
    throw new CommandError([command, ...args].join(" "), { stdout: failed.stdout ?? "", stderr: failed.stderr ?? failed.message }, detail);
  }
}

/** The workspace folders `npm run pack:local` packs (its `-w` arguments), e.g. `packages/core`. */
export function packLocalWorkspaces(): string[] {
  const script: string = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts["pack:local"];
  return [...script.matchAll(/(?:^|\s)-w\s+(\S+)/g)].map((match) => match[1]!);
}

/** The package folders of the repository: every `packages/<name>` with a package.json. */
export function packageFolders(): string[] {
  return readdirSync(join(root, "packages"))
    .filter((name) => existsSync(join(root, "packages", name, "package.json")))
    .map((name) => `packages/${name}`)
    .sort();
}

/**
 * Packs `workspaces` (by default those `npm run pack:local` packs) into `dir`, from their built
 * dist (which `npm test` builds first; pack:local runs the build itself), and returns the
 * tarballs' paths.
 */
export async function packWorkspaces(dir: string, workspaces: readonly string[] = packLocalWorkspaces()): Promise<string[]> {
  for (const workspace of workspaces) {
    const { main, name } = JSON.parse(readFileSync(join(root, workspace, "package.json"), "utf8"));
    if (!existsSync(join(root, workspace, main))) throw new Error(`${name} is not built (${join(workspace, main)} is missing): run \`npm run build\` first.`);
  }
  mkdirSync(dir, { recursive: true });
  await run("npm", ["pack", ...workspaces.flatMap((workspace) => ["-w", workspace]), "--pack-destination", dir], root, 120_000);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".tgz"))
    .map((name) => join(dir, name));
}

/** The version of `name` the repository installed: the project pins its peers to it, so npm's cache has them. */
export function repoVersion(name: string): string {
  return JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version;
}

/** The tsconfig.json docs/quickstart.md shows (its ```json block with compilerOptions). */
export function quickstartTsconfig(): { compilerOptions: Record<string, unknown> } {
  const text = readFileSync(join(root, "docs", "quickstart.md"), "utf8");
  for (const match of text.matchAll(/^```json\n([\s\S]*?)^```/gm)) {
    const config = JSON.parse(match[1]!);
    if (config.compilerOptions) return config;
  }
  throw new Error("docs/quickstart.md shows no tsconfig.json (a ```json block with compilerOptions).");
}

/**
 * Makes `dir` a project as docs/quickstart.md#install does (`npm init -y`, `"type": "module"`,
 * `allowScripts` for better-sqlite3), with a strict nodenext tsconfig.json, and installs the
 * tarballs, the peer dependencies, better-sqlite3, tsx, typescript and @types/node into it.
 *
 * Leaner than a newcomer's install: npm prefers its cache (`--prefer-offline`), and runs no
 * install scripts: better-sqlite3's would download or compile its addon (a minute or more), and
 * the repository's own build of the same version, for the same Node.js, is copied instead;
 * esbuild's (under tsx) is not needed.
 */
export async function installProject(dir: string, tarballs: string[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await run("npm", ["init", "-y"], dir);
  await run("npm", ["pkg", "set", "type=module"], dir);
  await run("npm", ["pkg", "set", "allowScripts.better-sqlite3=true", "--json"], dir);
  const docs = quickstartTsconfig();
  const strict = { ...docs.compilerOptions, strict: true, module: "nodenext", moduleResolution: "nodenext" };
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ ...docs, compilerOptions: strict }, null, 2)}\n`);

  await installPinned(dir, tarballs, ["@langchain/core", "rxjs", "zod", "better-sqlite3", "tsx", "typescript", "@types/node"]);

  const addon = join("build", "Release", "better_sqlite3.node");
  mkdirSync(join(dir, "node_modules", "better-sqlite3", "build", "Release"), { recursive: true });
  copyFileSync(join(root, "node_modules", "better-sqlite3", addon), join(dir, "node_modules", "better-sqlite3", addon));
}

/**
 * Installs `tarballs` and the packages `names` at the versions the repository installed (so npm's
 * cache has them) into the project `dir`: from the cache first, no install scripts, and one fetch
 * retry after at most 5 s, so that offline npm gives up in seconds instead of minutes.
 */
export async function installPinned(dir: string, tarballs: readonly string[], names: readonly string[]): Promise<void> {
  const pinned = names.map((name) => `${name}@${repoVersion(name)}`);
  const fetch = ["--fetch-retries=1", "--fetch-retry-mintimeout=1000", "--fetch-retry-maxtimeout=5000"];
  await run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", ...fetch, ...tarballs, ...pinned], dir, 150_000);
}

/**
 * Why npm's registry cannot be reached from here (`npm ping`), or undefined when it can: an
 * install that failed while it could is a real failure, not a machine that is offline.
 */
export async function registryProblem(cwd: string): Promise<string | undefined> {
  try {
    await run("npm", ["ping", "--fetch-retries=0"], cwd, 20_000);
    return undefined;
  } catch (error) {
    const code = /npm error code (\S+)/.exec((error as CommandError).output?.stderr ?? "")?.[1];
    return `npm's registry is not reachable (${code ?? "npm ping failed"}) and npm's cache lacks what the install needs`;
  }
}

/** Every entry point (`exports` subpath but ./package.json) of the installed @agentrx packages, as specifiers. */
export function entryPoints(dir: string, packages: string[]): string[] {
  return packages.flatMap((name) => {
    const { exports } = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8"));
    return Object.keys(exports)
      .filter((subpath) => subpath !== "./package.json")
      .map((subpath) => `${name}${subpath.slice(1)}`);
  });
}
