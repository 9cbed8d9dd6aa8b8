import type { UIMessageChunk as AIUIMessageChunk } from "ai";
import { describe, expectTypeOf, it } from "vitest";
import type { UIMessageChunk } from "./ui-message-chunk";

describe("UIMessageChunk", () => {
  it("is assignable to the ai package's UIMessageChunk", () => {
    expectTypeOf<UIMessageChunk>().toExtend<AIUIMessageChunk>();
  });
});
