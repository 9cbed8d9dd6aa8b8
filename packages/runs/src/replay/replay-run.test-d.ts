import type { AgentStreamEvent, RunStore } from "@agentrx/executors";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { Observable } from "rxjs";
import { describe, expectTypeOf, it } from "vitest";
import { RecordedChatModel } from "../recorded-chat-model/recorded-chat-model";
import { replayRun, type ReplayTiming } from "./replay-run";

declare const store: RunStore;

describe("replayRun types", () => {
  it("returns an observable of the executor's events", () => {
    expectTypeOf(replayRun(store, "r1")).toEqualTypeOf<Observable<AgentStreamEvent>>();
    expectTypeOf(replayRun).parameter(2).toEqualTypeOf<{ timing?: ReplayTiming } | undefined>();
    // @ts-expect-error: timing is "instant" or "original"
    replayRun(store, "r1", { timing: "fast" });
  });

  it("gives a RecordedChatModel wherever a chat model goes", () => {
    expectTypeOf(new RecordedChatModel({ store, runId: "r1" })).toMatchTypeOf<BaseChatModel>();
    // @ts-expect-error: a run id is required
    new RecordedChatModel({ store });
  });
});
