import { TaskState } from "@a2a-js/sdk";
import { AgentEvent } from "@a2a-js/sdk/server";
import { createToolCallingAgent } from "@agentrx/agents";
import { ScriptedChatModel } from "@agentrx/core/testing";
import { AgentExecutor } from "@agentrx/executors";
import { A2ATaskError, a2aTool } from "@agentrx/serve";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { afterEach, describe, expect, it } from "vitest";
import { closeServers } from "../test-helpers/http-servers";
import { SdkAgent, abortedCall, openTask, sdkServer, status, text } from "../test-helpers/sdk-a2a-server";

afterEach(closeServers);

/** A trivial agent written against the SDK alone, as its samples are: it shouts (word by word, into one artifact), fails on "fail", and waits on "wait" until cancelled. */
function shoutAgent(): SdkAgent {
  const agent: SdkAgent = new SdkAgent(async (input, context, bus) => {
    const { taskId, contextId } = context;
    openTask(context, bus);
    if (input === "fail") {
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_FAILED, "the shouting broke"));
      return;
    }
    if (input === "wait") {
      await agent.wait(taskId);
      return;
    }
    const artifactId = "shout";
    for (const [index, word] of input.toUpperCase().split(" ").entries()) {
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, append: index > 0, lastChunk: false, metadata: {}, artifact: { artifactId, name: "shout", description: "", parts: [text(index > 0 ? ` ${word}` : word)], metadata: {}, extensions: [] } }));
    }
    bus.publish(status(taskId, contextId, TaskState.TASK_STATE_COMPLETED));
  });
  return agent;
}

const shoutServer = () => sdkServer(shoutAgent(), { name: "Shout agent", description: "Repeats what you say, louder." });

describe("a2aTool", () => {
  it("takes its name and description from the agent card, and returns the task's answer", async () => {
    const url = await shoutServer();
    const shout = await a2aTool({ url });
    expect(shout.name).toBe("Shout_agent");
    expect(shout.description).toBe("Repeats what you say, louder.");
    expect(await shout.invoke({ input: "hello there" })).toBe("HELLO THERE");
    const named = await a2aTool({ url, name: "shouter", description: "Shouts." });
    expect([named.name, named.description]).toEqual(["shouter", "Shouts."]);
  });

  it("is a tool an agent calls; a failed remote task is an error the model reads", async () => {
    const url = await shoutServer();
    const shout = await a2aTool({ url, name: "shout" });
    const llm = new ScriptedChatModel({
      responses: [{ toolCalls: [{ name: "shout", args: { input: "hi" } }, { name: "shout", args: { input: "fail" } }] }, (messages) => messages.slice(-2).map((message) => message.text).join(" | ")],
    });
    const prompt = ChatPromptTemplate.fromMessages([["human", "{input}"], ["placeholder", "{agent_scratchpad}"]]);
    const executor = new AgentExecutor({ agent: createToolCallingAgent({ llm, tools: [shout], prompt }), tools: [shout] });
    const { output } = await executor.invoke({ input: "Shout twice" });
    expect(output).toContain("HI | ");
    expect(output).toContain('The A2A agent "Shout agent" ended task');
    expect(output).toContain("as failed: the shouting broke");
    await expect(shout.invoke({ input: "fail" })).rejects.toSatisfy((error: unknown) => A2ATaskError.isInstance(error) && error.state === "failed");
  });

  it("cancels the remote task when the call is aborted (the run is cancelled)", async () => {
    const agent = shoutAgent();
    const shout = await a2aTool({ url: await sdkServer(agent, { name: "Shout agent" }), name: "shout" });
    expect(await abortedCall(shout, agent)).toBe("AbortError");
    await expect.poll(() => agent.cancelled.length).toBe(1);
  });

  it("checks its options", async () => {
    await expect(a2aTool({ url: "ftp://nowhere" })).rejects.toThrow(/`url` must be the agent's http\(s\) base URL/);
    await expect(a2aTool({ url: "http://127.0.0.1:1", name: "has space" })).rejects.toThrow(/`name` must be/);
  });
});
