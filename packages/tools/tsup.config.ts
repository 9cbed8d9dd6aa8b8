import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    // The `browser` condition of ".": the same without the Node HTTP client and the tools built on it.
    "index.browser": "src/index.browser.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
  // mathjs (the calculator's parser) is loaded on first use: a chunk of its own, for CJS too.
  splitting: true,
});
