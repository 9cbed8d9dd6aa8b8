// A chat page on the AI SDK's real useChat (@ai-sdk/react), talking to a server that answers with
// @agentrx/serve's UI message stream. Plain JavaScript with createElement: Vite bundles it in the
// test. The chat id comes from the URL (?chat=...), so a reload reconnects to the same chat.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses } from "ai";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

const chatId = new URLSearchParams(location.search).get("chat") ?? "chat";

function Part({ part, onApprove }) {
  if (part.type === "text") return h("span", { className: "text" }, part.text);
  if (part.type === "dynamic-tool") {
    return h(
      "div",
      { className: "tool", "data-tool": part.toolName, "data-state": part.state },
      `${part.toolName}(${JSON.stringify(part.input)})`,
      part.state === "output-available" ? h("span", { className: "output" }, ` = ${String(part.output)}`) : null,
      part.state === "approval-requested" ? h("button", { className: "approve", onClick: () => onApprove(part.approval.id) }, "Approve") : null,
    );
  }
  return null;
}

function App() {
  const [input, setInput] = useState("");
  const { messages, sendMessage, status, error, addToolApprovalResponse } = useChat({
    id: chatId,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat" }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const onApprove = (id) => addToolApprovalResponse({ id, approved: true });
  return h(
    "main",
    null,
    h("p", { id: "status" }, status),
    error ? h("p", { id: "error" }, String(error.message)) : null,
    ...messages.map((message) =>
      h(
        "div",
        { key: message.id, className: "message", "data-role": message.role, "data-run": message.metadata?.runId ?? "", "data-stop": message.metadata?.stopReason ?? "" },
        ...message.parts.map((part, index) => h(Part, { key: index, part, onApprove })),
      ),
    ),
    h(
      "form",
      {
        onSubmit: (event) => {
          event.preventDefault();
          sendMessage({ text: input });
          setInput("");
        },
      },
      h("input", { id: "input", value: input, onChange: (event) => setInput(event.target.value) }),
      h("button", { id: "send", type: "submit" }, "Send"),
    ),
  );
}

createRoot(document.getElementById("root")).render(h(App));
