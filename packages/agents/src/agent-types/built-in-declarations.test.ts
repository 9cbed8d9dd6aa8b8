import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The package's peer range is @langchain/core 1.0 to 1.4, and the generics of its message types
// changed in between (`MessageStructure` is generic in 1.4, not in 1.0): declarations built
// against 1.4 must not spell those generics out, or a project on 1.0 fails to read them (TS2315).
// The built-in agent types are declared with `BaseMessage[]` for that. Checks the built files
// (`npm run build -w packages/agents` first).
const dist = fileURLToPath(new URL("../../dist/", import.meta.url));

describe("the agents' declarations", () => {
  it.each(["index.d.ts", "index.d.cts"])("spell no @langchain/core message generics: %s", (name) => {
    const file = `${dist}${name}`;
    expect(existsSync(file), `${file} is missing: run npm run build -w packages/agents`).toBe(true);
    const declarations = readFileSync(file, "utf8");
    expect(declarations.match(/.{0,80}\b(MessageStructure|MessageToolSet|BaseMessage)<.{0,40}/g) ?? []).toEqual([]);
  });
});
