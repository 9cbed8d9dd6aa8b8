// Test-only (not exported by the package): useChat's client (`AbstractChat` of the `ai` package)
// without React, for the chat flow tests.
import { AbstractChat, type ChatState, type ChatStatus, type UIMessage } from "ai";

/** useChat's state, kept in a plain array (React keeps it in a hook). */
export class ArrayChatState implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => void this.messages.push(message);
  popMessage = () => void this.messages.pop();
  replaceMessage = (index: number, message: UIMessage) => void (this.messages[index] = message);
  snapshot = <T>(value: T): T => structuredClone(value);
}

/** useChat's chat, on an {@link ArrayChatState}'s messages. */
export class Chat extends AbstractChat<UIMessage> {
  get messages(): UIMessage[] {
    return this.state.messages;
  }
}
