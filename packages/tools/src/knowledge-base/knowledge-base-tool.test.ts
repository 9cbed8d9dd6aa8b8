import { InvalidArgumentError } from "@agentrx/core";
import { Document } from "@langchain/core/documents";
import { SyntheticEmbeddings } from "@langchain/core/utils/testing";
import { FakeRetriever, FakeVectorStore } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";
import { type KnowledgeBaseToolOptions, createKnowledgeBaseTool } from "./knowledge-base-tool";

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
    expect(await kb.invoke({ query: "带" })).toMatch(/^\[1\] source: leave\.md/);
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

  it("searches with at most the query's first 32 distinct terms and says so", async () => {
    const filler = Array.from({ length: 40 }, (_, i) => `word${i}`);
    const kb = createKnowledgeBaseTool({
      documents: [
        { source: "first.md", content: "word0 appears here." },
        { source: "late.md", content: "zebra appears here." },
      ],
    });
    const answer = await kb.invoke({ query: [...filler, "word0", "WORD1", "zebra"].join(" ") });
    expect(answer).toMatch(/^\[1\] source: first\.md/);
    expect(answer).not.toContain("late.md");
    expect(answer).toContain("Only the first 32 of the query's 41 distinct terms were searched.");
    // A query within the limit carries no note.
    const within = await kb.invoke({ query: [...filler.slice(0, 31), "zebra"].join(" ") });
    expect(within).toContain("late.md");
    expect(within).not.toContain("Only the first");
  });

  it("answers a query of one 100,000-character word with an observation rather than an error", async () => {
    const kb = createKnowledgeBaseTool({ documents });
    const answer = await kb.invoke({ query: "x".repeat(100_000) });
    expect(answer).toMatch(/^No documents in the knowledge base match "x{80}\.\.\."\. The query was cut to its first 1000 characters\.$/);
  });

  it("matches misspelt words fuzzily, but not words longer than 20 characters", async () => {
    const kb = createKnowledgeBaseTool({ documents: [
      { source: "leave.md", content: "Employees get 25 days of paid leave per year." },
      { source: "long.md", content: "The pneumonoultramicroscopicsilicovolcanoconiosis clause." },
    ] });
    expect(await kb.invoke({ query: "empolyees" })).toMatch(/^\[1\] source: leave\.md/);
    expect(await kb.invoke({ query: "leeve" })).toMatch(/^\[1\] source: leave\.md/);
    expect(await kb.invoke({ query: "employ" })).toMatch(/^\[1\] source: leave\.md/);
    // One letter off in a 45-letter word: fuzzy matching such a term is what makes a long query costly.
    expect(await kb.invoke({ query: "pneumonoultramicroscopicsilicovolcanoconiosix" })).toMatch(/^No documents/);
  });

  it("shortens a long query in the no-match message", async () => {
    const answer = await createKnowledgeBaseTool({ documents }).invoke({ query: "zzzq ".repeat(200) });
    expect(answer).toBe(`No documents in the knowledge base match "${"zzzq ".repeat(16)}...".`);
  });

  it("ends Chinese and Japanese passages at a sentence end, though no space follows it", async () => {
    const content = Array.from({ length: 20 }, (_, i) => `第${i}条规定员工每年享有带薪假期二十五天并且必须提前申请。`).join("");
    const kb = createKnowledgeBaseTool({ documents: [{ source: "zh.md", content }], maxCharsPerResult: 100, topK: 20 });
    const answer = await kb.invoke({ query: "带薪假期" });
    const passages = answer.split(/\n\n(?=\[\d+\])/).map((result) => result.slice(result.indexOf("\n") + 1));
    expect(passages.length).toBeGreaterThan(5);
    for (const passage of passages) expect(passage).toMatch(/^第\d+条.*。$/);
  });

  it("finds text whatever its Unicode form or width, and returns it as written", async () => {
    const decomposed = "Il est né à Paris.".normalize("NFD");
    const kb = createKnowledgeBaseTool({ documents: [{ source: "fr.md", content: decomposed }, { source: "leave.md", content: "Paid leave." }] });
    const answer = await kb.invoke({ query: "né".normalize("NFC") });
    expect(answer).toMatch(/^\[1\] source: fr\.md \(score: [\d.]+\)\n/);
    expect(answer.slice(answer.indexOf("\n") + 1)).toBe(decomposed);
    expect(await kb.invoke({ query: "ｌｅａｖｅ" })).toMatch(/^\[1\] source: leave\.md/);
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

  it("refuses an infinite topK and a title, source or description that is not a string", () => {
    expect(() => createKnowledgeBaseTool({ documents, topK: Number.POSITIVE_INFINITY })).toThrow(/topK must be an integer >= 1, got Infinity/);
    for (const [options, argument] of [
      [{ documents: [{ content: "x", title: 5 as never }] }, "documents[0].title"],
      [{ documents: [{ content: "x" }, { content: "y", source: { a: 1 } as never }] }, "documents[1].source"],
      [{ documents, description: 5 as never }, "description"],
    ] as const) {
      let thrown: unknown;
      try {
        createKnowledgeBaseTool(options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, argument).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).argument).toBe(argument);
      expect((thrown as Error).message).toMatch(new RegExp(`^createKnowledgeBaseTool ${argument.replace(/[[\]]/g, "\\$&")} must be a string, got .+\\.$`));
    }
  });

  it("refuses a null source under its own name, saying what was given", () => {
    for (const argument of ["documents", "retriever", "vectorStore"] as const) {
      let thrown: unknown;
      try {
        createKnowledgeBaseTool({ [argument]: null } as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, argument).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).argument).toBe(argument);
      expect((thrown as Error).message).toMatch(new RegExp(`^createKnowledgeBaseTool ${argument} must be .+, got null\\.$`));
    }
  });

  it("names a passage by its title, else its number, when its source is empty", async () => {
    const kb = createKnowledgeBaseTool({
      documents: [
        { source: "", title: "Leave policy", content: "Employees get 25 days of paid leave per year." },
        { source: "", title: "", content: "Submit expenses within 30 days, with receipts." },
      ],
    });
    expect(await kb.invoke({ query: "paid leave" })).toMatch(/^\[1\] source: Leave policy \(/);
    expect(await kb.invoke({ query: "receipts" })).toMatch(/^\[1\] source: document 2 \(/);
  });

  it("fails a call whose retriever or vector store gives back something else than results, naming it", async () => {
    const doc = new Document({ pageContent: "p", metadata: { source: "s" } });
    const cases: [KnowledgeBaseToolOptions, string][] = [
      [{ retriever: { invoke: async () => "not a list" as never } }, 'createKnowledgeBaseTool retriever.invoke(query) must give back a list of documents; got "not a list".'],
      [{ retriever: { invoke: async () => [{ metadata: {} }] as never } }, "createKnowledgeBaseTool retriever.invoke(query) must give back documents with a pageContent string; result 1 is an object with keys metadata."],
      [{ vectorStore: { similaritySearchWithScore: async () => ({}) as never } }, "createKnowledgeBaseTool vectorStore.similaritySearchWithScore(query, k) must give back a list of [document, score] pairs; got an object with no keys."],
      [{ vectorStore: { similaritySearchWithScore: async () => [doc] as never } }, "createKnowledgeBaseTool vectorStore.similaritySearchWithScore(query, k) must give back a list of [document, score] pairs; result 1 is an object with keys pageContent, metadata, id."],
      [{ vectorStore: { similaritySearchWithScore: async () => [[doc, "0.8"]] as never } }, 'createKnowledgeBaseTool vectorStore.similaritySearchWithScore(query, k) must give back a number as each score; result 1 has "0.8".'],
      [{ vectorStore: { similaritySearchWithScore: async () => [[doc, Number.NaN]] } }, "createKnowledgeBaseTool vectorStore.similaritySearchWithScore(query, k) must give back a number as each score; result 1 has NaN."],
      [{ vectorStore: { similaritySearchWithScore: async () => [[{ metadata: {} }, 1]] as never } }, "createKnowledgeBaseTool vectorStore.similaritySearchWithScore(query, k) must give back documents with a pageContent string; result 1 is an object with keys metadata."],
    ];
    for (const [options, message] of cases) await expect(createKnowledgeBaseTool(options).invoke({ query: "x" })).rejects.toThrow(message);
  });

  it("refuses a misspelt option and documents that are not a list", () => {
    expect(() => createKnowledgeBaseTool({ documents, topk: 1 } as never)).toThrow(/createKnowledgeBaseTool: unknown option `topk`; did you mean `topK`\?/);
    expect(() => createKnowledgeBaseTool({ documents: "Employees get 25 days." as never })).toThrow(/createKnowledgeBaseTool documents must be a list of \{ content, source\?, title\? \} documents/);
  });
});
