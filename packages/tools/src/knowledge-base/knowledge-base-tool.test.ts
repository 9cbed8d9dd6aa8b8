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

  it("splits a long document into passages and returns the one that matches, not the document's beginning", async () => {
    const content = `${"Intro text. ".repeat(500)}\n\nThe refund window is 45 days for premium members.\n\n${"Filler text. ".repeat(500)}`;
    const kb = createKnowledgeBaseTool({ documents: [{ source: "manual.md", content }], maxCharsPerResult: 200, topK: 1 });
    const answer = await kb.invoke({ query: "refund window" });
    expect(answer).toMatch(/^\[1\] source: manual\.md, part \d+ of \d+ \(score: [\d.]+\)\n(Intro text\. )*\s*The refund window is 45 days for premium members\.$/);
    const parts = Number(/of (\d+)/.exec(answer)![1]);
    expect(parts).toBeGreaterThan(50);
    // Every passage is at most maxCharsPerResult, cut at a boundary where there is one.
    const all = await createKnowledgeBaseTool({ documents: [{ source: "manual.md", content }], maxCharsPerResult: 200, topK: parts }).invoke({ query: "intro" });
    const passages = all.split(/\n\n(?=\[\d+\])/).map((result) => result.slice(result.indexOf("\n") + 1));
    expect(passages.length).toBeGreaterThan(10);
    for (const passage of passages) {
      expect(passage.length).toBeLessThanOrEqual(200);
      expect(passage).toMatch(/^Intro text\..*\.$/s);
    }
  });

  it("finds Chinese and Japanese words inside text written without spaces", async () => {
    const kb = createKnowledgeBaseTool({
      documents: [
        { source: "leave.md", content: "员工每年有二十五天带薪假期。" },
        { source: "expenses.md", content: "報告書は三十日以内に提出してください。" },
      ],
    });
    expect(await kb.invoke({ query: "带薪假期" })).toMatch(/^\[1\] source: leave\.md/);
    expect(await kb.invoke({ query: "带薪" })).toMatch(/^\[1\] source: leave\.md/);
    expect(await kb.invoke({ query: "提出" })).toMatch(/^\[1\] source: expenses\.md/);
  });

  it("never cuts a passage inside a surrogate pair", async () => {
    const kb = createKnowledgeBaseTool({ documents: [{ source: "emoji.txt", content: `needle ${"😀".repeat(20)}` }], maxCharsPerResult: 10 });
    const answer = await kb.invoke({ query: "needle" });
    expect(answer).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const retriever = new FakeRetriever({ output: [new Document({ pageContent: "ab😀😀😀", metadata: { source: "r.md" } })] });
    const cut = await createKnowledgeBaseTool({ retriever, maxCharsPerResult: 3 }).invoke({ query: "x" });
    expect(cut).toBe("[1] source: r.md\nab...");
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

  it("cuts a retriever's long results", async () => {
    const retriever = new FakeRetriever({ output: [new Document({ pageContent: `needle ${"x".repeat(100)}`, metadata: { source: "long.txt" } })] });
    await expect(createKnowledgeBaseTool({ retriever, maxCharsPerResult: 10 }).invoke({ query: "needle" })).resolves.toBe("[1] source: long.txt\nneedle xxx...");
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
