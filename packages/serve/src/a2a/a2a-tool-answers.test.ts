import { TaskState } from "@a2a-js/sdk";
import { AgentEvent } from "@a2a-js/sdk/server";
import { a2aTool } from "@agentrx/serve";
import { afterEach, describe, expect, it } from "vitest";
import { closeServers } from "../test-helpers/http-servers";
import { SdkAgent, abortedCall, completeTask, file, openTask, reply, sdkServer, status, text } from "../test-helpers/sdk-a2a-server";

// What a2aTool makes of what remote agents written against the SDK alone send: a task it
// continues, auth-required, files, an agent that does not stream, a card under a path.

afterEach(closeServers);

const taskIdIn = (answer: string) => /\(task ([^)]+)\)/.exec(answer)?.[1] ?? "";

describe.each([
  ["streams", true],
  ["does not stream", false],
])("a2aTool, for an agent that %s", (_name, streaming) => {
  it("answers a task it continues: the task as it stood (the pause being answered) opens the reply, and is not the task's new state", async () => {
    const agent = new SdkAgent((input, context, bus) => {
      if (context.task === undefined) {
        openTask(context, bus);
        bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_INPUT_REQUIRED, "Which order?"));
        return;
      }
      // As the SDK's samples do: the stored task first (still input-required), then the work.
      bus.publish(AgentEvent.task(context.task));
      bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_WORKING));
      completeTask(context, bus, [text(`Refunded order ${input}.`)]);
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    const first = await remote.invoke({ input: "Refund my order" });
    expect(first).toContain('needs more input (task');
    expect(first).toContain("Which order?");
    expect(await remote.invoke({ input: "A-17", taskId: taskIdIn(first) })).toBe("Refunded order A-17.");
  });

  it.each([
    ["the stream stays open, as the SDK's servers keep it", true],
    ["the stream ends", false],
  ])("returns an agent's request for authorization, with the task's id, when the task stops there (%s)", async (_how, keepOpen) => {
    const agent = new SdkAgent((_input, context, bus) => {
      openTask(context, bus);
      bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_AUTH_REQUIRED, "Sign in at https://auth.example.com/device first."));
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming, keepOpen }) });
    const answer = await remote.invoke({ input: "My invoices?" });
    expect(answer).toMatch(/^The agent "Remote agent" needs authorization to go on \(task [^)]+\): Sign in at https:\/\/auth\.example\.com\/device first\.\n/);
    expect(answer).toContain(`call this tool again with taskId "${taskIdIn(answer)}"`);
  });

  it("says which files the answer had (name, media type, size), in place of their bytes", async () => {
    const agent = new SdkAgent((input, context, bus) => {
      if (input === "chart") {
        openTask(context, bus);
        completeTask(context, bus, [text("Here is the chart:"), file(2048, "chart.png", "image/png")]);
        return;
      }
      bus.publish(AgentEvent.message(reply("", context.contextId, [file(12, "", "application/octet-stream")])));
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    expect(await remote.invoke({ input: "chart" })).toBe('Here is the chart:\n[File "chart.png" (image/png, 2.0 KB): its bytes are not shown.]');
    expect(await remote.invoke({ input: "bytes" })).toBe("[File (application/octet-stream, 12 B): its bytes are not shown.]");
  });

  it("answers with what the task's final state says, not an earlier status update's text, when it ends with no artifact and no message", async () => {
    const agent = new SdkAgent((input, context, bus) => {
      openTask(context, bus);
      bus.publish(status(context.taskId, context.contextId, TaskState.TASK_STATE_WORKING, "Looking it up..."));
      const final = { done: TaskState.TASK_STATE_COMPLETED, fail: TaskState.TASK_STATE_FAILED, ask: TaskState.TASK_STATE_INPUT_REQUIRED }[input] ?? TaskState.TASK_STATE_REJECTED;
      bus.publish(status(context.taskId, context.contextId, final));
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    const done: string = await remote.invoke({ input: "done" });
    expect(done).toMatch(/^The agent "Remote agent" completed task [0-9a-f-]{36} without an answer: it sent no artifact and no message\.$/);
    const failed = await remote.invoke({ input: "fail" }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: "A2ATaskError", state: "failed", message: expect.stringMatching(/^The A2A agent "Remote agent" ended task \S+ as failed\.$/) });
    const asked: string = await remote.invoke({ input: "ask" });
    expect(asked).toMatch(/^The agent "Remote agent" needs more input \(task [^)]+\): it did not say what\.\n/);
  });

  it("cancels the remote task when the call is aborted", async () => {
    const agent = new SdkAgent(async (_input, context, bus) => {
      openTask(context, bus);
      await agent.wait(context.taskId);
    });
    const remote = await a2aTool({ url: await sdkServer(agent, { streaming }) });
    expect(await abortedCall(remote, agent)).toBe("AbortError");
    await expect.poll(() => agent.cancelled.length).toBe(1);
  });
});

describe("a2aTool's agent card", () => {
  it.each(["/agents/remote", "/agents/remote/"])("is read at <url>/.well-known/agent-card.json, for a url with a path (%s)", async (path) => {
    const agent = new SdkAgent((input, context, bus) => {
      openTask(context, bus);
      completeTask(context, bus, [text(input.toUpperCase())]);
    });
    const url = await sdkServer(agent, { at: "/agents/remote" });
    const remote = await a2aTool({ url: `${new URL(url).origin}${path}` });
    expect(remote.name).toBe("Remote_agent");
    expect(await remote.invoke({ input: "hi" })).toBe("HI");
  });
});

describe("a2aTool, when the agent card cannot be read", () => {
  it("names the card's URL and what failed: nothing listening, or a server without a card", async () => {
    const { createServer } = await import("node:http");
    const refused = await a2aTool({ url: "http://127.0.0.1:9/agents/x" }).then(() => undefined, (error: unknown) => error as Error);
    expect(refused?.message).toMatch(/^a2aTool: could not read the agent card at http:\/\/127\.0\.0\.1:9\/agents\/x\/\.well-known\/agent-card\.json: /);
    const server = createServer((_request, response) => response.writeHead(404).end("no card here"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as { port: number }).port;
      const missing = await a2aTool({ url: `http://127.0.0.1:${port}` }).then(() => undefined, (error: unknown) => error as Error);
      expect(missing?.message).toContain(`a2aTool: could not read the agent card at http://127.0.0.1:${port}/.well-known/agent-card.json: `);
      expect(missing?.cause).toBeInstanceOf(Error);
    } finally {
      server.close();
    }
  });
});
