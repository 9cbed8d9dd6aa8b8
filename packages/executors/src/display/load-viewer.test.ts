import { describe, expect, it } from "vitest";
import { viewerLoadMessage } from "./load-viewer";

function moduleNotFound(message: string): Error {
  return Object.assign(new Error(message), { code: "ERR_MODULE_NOT_FOUND" });
}

describe("viewerLoadMessage", () => {
  it("says to install the viewer when the package itself is not found", () => {
    const message = viewerLoadMessage(moduleNotFound("Cannot find package '@agentrx/viewer' imported from /app/node_modules/@agentrx/executors/dist/index.js"));
    expect(message).toBe("Displaying a run and rendering a trace page need @agentrx/viewer: install it next to @agentrx/executors (npm install @agentrx/viewer).");
  });

  it("keeps the cause, whole, when a file the viewer imports is missing, and says a restart clears it", () => {
    const detail = "Cannot find module '/app/packages/runs/dist/index.js' imported from /app/packages/viewer/dist/index.js (a rebuild)";
    const message = viewerLoadMessage(moduleNotFound(detail));
    expect(message).toContain(`could not be loaded: ${detail}.`);
    expect(message).toContain("npm install @agentrx/viewer");
    expect(message).toMatch(/Restart the process \(in a notebook, its kernel\)/);
  });

  it("keeps any other failure's message, and a thrown value that is not an Error", () => {
    expect(viewerLoadMessage(new SyntaxError("Unexpected token 'export'"))).toContain("could not be loaded: Unexpected token 'export'.");
    expect(viewerLoadMessage("boom")).toContain("could not be loaded: boom.");
  });
});
