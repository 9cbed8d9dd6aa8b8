import { InvalidArgumentError } from "@agentrx/core";
import { Document } from "@langchain/core/documents";
import { SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { FakeRetriever, FakeVectorStore } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { createKnowledgeBaseTool } from "./knowledge-base-tool";

const documents = [
  { source: "leave.md", title: "Leave policy", content: "Employees get 25 days of paid leave per year." },
  { source: "expenses.md", title: "Expenses", content: "Submit expenses within 30 days, with receipts." },
  { title: "Laptops", content: "Every employee gets a laptop; replacements every three years." },
];

describe("createKnowledgeBaseTool over local documents", () => {
  it("returns the best passages with source and score", async () => {
    const kb = createKnowledgeBaseTool({ documents, topK: 2 });
    const answer = await kb.invoke({ query: "paid leave" });
    expect(answer).toMatch(/^\[1\] source: leave\.md \(score: \d+(\.\d+)?\)\nEmployees get 25 days of paid leave per year\.$/);
  });

  it("limits results to topK and falls back to the title as source", async () => {
    const kb = createKnowledgeBaseTool({ documents, topK: 1 });
    const answer = await kb.invoke({ query: "employee laptop employee" });
    expect(answer.match(/^\[\d\]/gm)).toEqual(["[1]"]);
    expect(answer).toContain("source: Laptops");
  });

  it("leaves out results below the score threshold and says when nothing matched", async () => {
    const all = await createKnowledgeBaseTool({ documents }).invoke({ query: "employee receipts" });
    expect(all.match(/^\[\d\]/gm)?.length).toBeGreaterThan(1);
    const strict = await createKnowledgeBaseTool({ documents, scoreThreshold: 1e6 }).invoke({ query: "employee receipts" });
    expect(strict).toBe('No documents in the knowledge base match "employee receipts".');
  });

  it("cuts long passages", async () => {
    const kb = createKnowledgeBaseTool({ documents: [{ source: "long.txt", content: `needle ${"x".repeat(100)}` }], maxCharsPerResult: 10 });
    await expect(kb.invoke({ query: "needle" })).resolves.toMatch(/\nneedle xxx\.\.\.$/);
  });

  it("rejects missing, empty and wrong-typed queries", async () => {
    const kb = createKnowledgeBaseTool({ documents });
    await expect(kb.invoke({} as never)).rejects.toThrow(/did not match expected schema/);
    await expect(kb.invoke({ query: "" })).rejects.toThrow(/did not match expected schema/);
    await expect(kb.invoke({ query: ["a"] } as never)).rejects.toThrow(/did not match expected schema/);
  });
});

describe("createKnowledgeBaseTool over LangChain sources", () => {
  it("uses a retriever, reading metadata.score when there is one", async () => {
    const retriever = new FakeRetriever({
      output: [
        new Document({ pageContent: "Rome is the capital of Italy.", metadata: { source: "italy.md", score: 0.9 } }),
        new Document({ pageContent: "Unscored passage.", metadata: { title: "Notes" } }),
        new Document({ pageContent: "Weak match.", metadata: { source: "weak.md", score: 0.1 } }),
      ],
    });
    const answer = await createKnowledgeBaseTool({ retriever, scoreThreshold: 0.5 }).invoke({ query: "capital of Italy" });
    expect(answer).toBe("[1] source: italy.md (score: 0.9)\nRome is the capital of Italy.\n\n[2] source: Notes\nUnscored passage.");
  });

  it("uses a vector store's similarity search with scores", async () => {
    const store = new FakeVectorStore(new SyntheticEmbeddings({ vectorSize: 16 }));
    await store.addDocuments([
      new Document({ pageContent: "alpha beta", metadata: { source: "a.md" } }),
      new Document({ pageContent: "gamma delta", metadata: { source: "g.md" } }),
    ]);
    const answer = await createKnowledgeBaseTool({ vectorStore: store, topK: 1 }).invoke({ query: "alpha beta" });
    expect(answer).toMatch(/^\[1\] source: a\.md \(score: 1\)\nalpha beta$/);
  });

  it("needs exactly one source and valid limits", () => {
    expect(() => createKnowledgeBaseTool({})).toThrow(/needs exactly one of documents, retriever or vectorStore; got 0/);
    expect(() => createKnowledgeBaseTool({ documents, retriever: new FakeRetriever() })).toThrow(InvalidArgumentError);
    expect(() => createKnowledgeBaseTool({ documents, topK: 0 })).toThrow(/topK must be an integer >= 1/);
    expect(() => createKnowledgeBaseTool({ documents: [{ content: 5 as never }] })).toThrow(/documents\[0\]\.content must be a string/);
  });

  it("refuses a misspelt option and documents that are not a list", () => {
    expect(() => createKnowledgeBaseTool({ documents, topk: 1 } as never)).toThrow(/createKnowledgeBaseTool: unknown option `topk`; did you mean `topK`\?/);
    expect(() => createKnowledgeBaseTool({ documents: "Employees get 25 days." as never })).toThrow(/createKnowledgeBaseTool documents must be a list of \{ content, source\?, title\? \} documents/);
  });
});
