import { defineConfig, type Options } from "tsup";

// The `agentrx` executable: one ESM file with its shebang, and the AgentRx packages it uses
// bundled in (from their sources, through the repository's tsconfig paths), so it builds in a
// second without the other packages' builds. @langchain/core, rxjs, zod and the database drivers
// stay external: they come from the user's install.
export const cliConfig: Options = {
  entry: { agentrx: "src/cli/main.ts" },
  outDir: "dist/cli",
  format: ["esm"],
  banner: { js: "#!/usr/bin/env node" },
  dts: false,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
  noExternal: [/^@agentrx\//],
  external: ["better-sqlite3", "pg", "vitest"],
};

export default defineConfig(cliConfig);
