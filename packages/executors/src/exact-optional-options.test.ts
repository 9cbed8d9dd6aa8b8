import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The repository compiles with `exactOptionalPropertyTypes` off; users who turn it on must still be
// able to pass a value that may be `undefined` to an optional option (`system: req.system`), as the
// runtime takes `undefined` for "not given". This checks exact-optional-options.test-d.ts, written
// that way, under the repository's tsconfig with the setting on: only that file's own diagnostics
// count (the sources it imports are the packages' own business, checked by `npm run typecheck`).
const root = fileURLToPath(new URL("../../../", import.meta.url));
const fixture = fileURLToPath(new URL("./exact-optional-options.test-d.ts", import.meta.url));

/** The diagnostics of `file` under the root tsconfig with `exactOptionalPropertyTypes: true`, as text. */
function diagnosticsWithExactOptionalTypes(file: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(`${root}tsconfig.json`, { exactOptionalPropertyTypes: true, noEmit: true }, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    },
  });
  if (config === undefined) throw new Error("tsconfig.json could not be read");
  const program = ts.createProgram({ rootNames: [file], options: config.options });
  const source = program.getSourceFile(file);
  if (source === undefined) throw new Error(`${file} is not in the program`);
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((diagnostic) => {
    const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    return `line ${line + 1}: TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n").split("\n")[0]}`;
  });
}

describe("exactOptionalPropertyTypes", () => {
  it("accepts options whose values may be undefined", () => {
    expect(diagnosticsWithExactOptionalTypes(fixture)).toEqual([]);
  }, 120_000);
});
