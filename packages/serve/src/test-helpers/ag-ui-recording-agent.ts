// Test-only (not exported by the package): an AG-UI client that records what it receives.
import { HttpAgent } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";

/** An AG-UI client's view of `url`: every event it received (`events`), each validated by @ag-ui/core's schemas; run it with `agent.runAgent(…, subscriber)`. */
export function recordingAgent(url: string, threadId: string) {
  const agent = new HttpAgent({ url, threadId });
  const events: { type: string }[] = [];
  const subscriber = {
    onEvent: ({ event }: { event: { type: string } }) => {
      EventSchemas.parse(event);
      events.push(event);
    },
  };
  return { agent, events, subscriber };
}
