import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    // The `browser` condition of ./testing: the same without the Node HTTP server.
    "testing/index.browser": "src/testing/index.browser.ts",
    "openai/index": "src/openai/index.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  treeshake: true,
});
