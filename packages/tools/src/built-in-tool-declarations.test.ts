import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The published declarations of the built-in tools must compile with every @langchain/core 1.x and
// with zod 3.25 as well as zod 4 (the peer ranges). A return type left to inference is written out
// as `DynamicStructuredTool<ZodObject<..., z.core.$strip>, ...>`: six type arguments, which
// @langchain/core before 1.2 does not take, and `z.core`, which zod 3 does not have. This emits
// their declarations, as the build does, and checks that the tools' types name neither.
const root = fileURLToPath(new URL("../../../", import.meta.url));
const files = {
  createCalculatorTool: fileURLToPath(new URL("./calculator/calculator-tool.ts", import.meta.url)),
  createKnowledgeBaseTool: fileURLToPath(new URL("./knowledge-base/knowledge-base-tool.ts", import.meta.url)),
  createHttpRequestTool: fileURLToPath(new URL("./http/http-request-tool.ts", import.meta.url)),
};

/** The emitted declaration of each file, by the function it declares. */
function declarations(): Record<keyof typeof files, string> {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${root}tsconfig.json`,
    { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: "/declarations" },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram({ rootNames: Object.values(files), options: config.options });
  const emitted = Object.fromEntries(
    Object.entries(files).map(([name, file]) => {
      const source = program.getSourceFile(file);
      if (source === undefined) throw new Error(`${file} is not in the program`);
      let text = "";
      program.emit(source, (fileName, data) => {
        if (fileName.endsWith(".d.ts")) text = data;
      }, undefined, true);
      return [name, text];
    }),
  );
  return emitted as Record<keyof typeof files, string>;
}

/** The declared return type of `name` in `text`. */
function returnTypeOf(text: string, name: string): string {
  const match = new RegExp(`export declare function ${name}\\([^)]*\\): ([\\s\\S]*?);\\n(?:export|/\\*\\*|$)`).exec(text);
  if (!match?.[1]) throw new Error(`no declaration of ${name} in:\n${text}`);
  return match[1];
}

describe("built-in tools' declarations", () => {
  it("name no zod type and no DynamicStructuredTool in the tools' types", () => {
    const emitted = declarations();
    const names = Object.keys(files) as (keyof typeof files)[];
    const returned = Object.fromEntries(names.map((name) => [name, returnTypeOf(emitted[name], name)]));
    const portable = expect.not.stringMatching(/\bz\.|Zod|DynamicStructuredTool/);
    expect(returned).toEqual(Object.fromEntries(names.map((name) => [name, portable])));
  }, 120_000);
});
