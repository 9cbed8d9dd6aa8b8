import { InvalidArgumentError, checkOptionKeys } from "@agentrx/core";
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { tool } from "@langchain/core/tools";
import type { VectorStoreInterface } from "@langchain/core/vectorstores";
import MiniSearch from "minisearch";
import { z } from "zod";
import { checkNumberOption } from "../internal/check-number-option";

/** A local document for the built-in full-text index. */
export interface KnowledgeDocument {
  /** The text that is searched and returned. */
  content: string;
  /** Where it comes from (file name, URL); shown with each result. @default its title, else "document <n>" */
  source?: string;
  /** A title, searched with a higher weight than the content. */
  title?: string;
}

/** Options of {@link createKnowledgeBaseTool}: give exactly one of `documents`, `retriever`, `vectorStore`. */
export interface KnowledgeBaseToolOptions {
  /** The tool's name. @default "knowledge_base" */
  name?: string;
  /** What the knowledge base holds, so the model knows when to search it. @default a generic description */
  description?: string;
  /** Local documents, indexed in memory with full-text search (BM25, prefix and fuzzy matching). */
  documents?: readonly KnowledgeDocument[];
  /** Any `@langchain/core` retriever; a document's score is read from `metadata.score` when present. */
  retriever?: Pick<BaseRetrieverInterface, "invoke">;
  /** Any `@langchain/core` vector store; results come from `similaritySearchWithScore` (higher is better). */
  vectorStore?: Pick<VectorStoreInterface, "similaritySearchWithScore">;
  /** The most results returned (integer >= 1). @default 4 */
  topK?: number;
  /**
   * Results scoring below this are left out. For `documents` the score is minisearch's BM25 score
   * (unbounded); for a vector store, its similarity. Results without a score are kept. @default none
   */
  scoreThreshold?: number;
  /** Each result's text is cut to this many characters. @default 2000 */
  maxCharsPerResult?: number;
}

/** One search result. */
export interface KnowledgeResult {
  content: string;
  source: string;
  score: number | undefined;
}

/** The options {@link createKnowledgeBaseTool} takes: a misspelt one (`topk`) would leave its default in place. */
const KNOWLEDGE_BASE_OPTION_KEYS = Object.keys({
  name: true, description: true, documents: true, retriever: true, vectorStore: true, topK: true, scoreThreshold: true, maxCharsPerResult: true,
} satisfies Record<keyof KnowledgeBaseToolOptions, true>);

type Search = (query: string, config: { signal?: AbortSignal; callbacks?: unknown }) => Promise<KnowledgeResult[]>;

/**
 * A knowledge-base retriever tool, like Dify's dataset retriever: the model sends a query and gets
 * the `topK` best passages above `scoreThreshold`, each with its source and score. It searches
 * local `documents` with an embedded full-text index, or any `retriever` or `vectorStore`.
 *
 * @example
 * ```ts
 * import { createKnowledgeBaseTool } from "@agentrx/tools";
 *
 * const handbook = createKnowledgeBaseTool({
 *   description: "The employee handbook: leave, expenses, equipment.",
 *   documents: [
 *     { source: "leave.md", content: "Employees get 25 days of paid leave per year." },
 *     { source: "expenses.md", content: "Submit expenses within 30 days with receipts." },
 *   ],
 *   topK: 1,
 * });
 * console.log(await handbook.invoke({ query: "paid leave days" }));
 * ```
 */
export function createKnowledgeBaseTool(options: KnowledgeBaseToolOptions) {
  checkOptionKeys("createKnowledgeBaseTool", options, KNOWLEDGE_BASE_OPTION_KEYS);
  const { name = "knowledge_base", description, topK = 4, scoreThreshold, maxCharsPerResult = 2000 } = options;
  checkNumberOption("topK", topK, { min: 1, integer: true });
  checkNumberOption("maxCharsPerResult", maxCharsPerResult, { min: 1, integer: true });
  if (scoreThreshold !== undefined) checkNumberOption("scoreThreshold", scoreThreshold, { min: Number.NEGATIVE_INFINITY });
  const search = buildSearch(options, topK);
  return tool(
    async ({ query }, config) => {
      const found = (await search(query, { signal: config?.signal, callbacks: config?.callbacks }))
        .filter((result) => scoreThreshold === undefined || result.score === undefined || result.score >= scoreThreshold)
        .slice(0, topK);
      if (found.length === 0) return `No documents in the knowledge base match ${JSON.stringify(query)}.`;
      return found
        .map((result, index) => {
          const score = result.score === undefined ? "" : ` (score: ${Number(result.score.toFixed(3))})`;
          const text = result.content.length > maxCharsPerResult ? `${result.content.slice(0, maxCharsPerResult)}...` : result.content;
          return `[${index + 1}] source: ${result.source}${score}\n${text}`;
        })
        .join("\n\n");
    },
    {
      name,
      description: `Searches a knowledge base and returns the most relevant passages with their sources. ${description ?? ""}`.trim(),
      schema: z.object({ query: z.string().min(1).describe("What to look for, in a few keywords or a question.") }),
    },
  );
}

function buildSearch(options: KnowledgeBaseToolOptions, topK: number): Search {
  const { documents, retriever, vectorStore } = options;
  const given = [documents, retriever, vectorStore].filter((source) => source !== undefined).length;
  if (given !== 1) {
    throw new InvalidArgumentError({
      argument: "documents",
      value: given,
      message: `createKnowledgeBaseTool needs exactly one of documents, retriever or vectorStore; got ${given}.`,
    });
  }
  if (documents) return documentSearch(documents);
  if (retriever) {
    if (typeof retriever.invoke !== "function") throw invalidSource("retriever", retriever, "a retriever with invoke(query)");
    return async (query, config) => (await retriever.invoke(query, config as never)).map((doc, index) => toResult(doc, readScore(doc), index));
  }
  if (typeof vectorStore?.similaritySearchWithScore !== "function") {
    throw invalidSource("vectorStore", vectorStore, "a vector store with similaritySearchWithScore(query, k)");
  }
  return async (query, config) =>
    (await vectorStore.similaritySearchWithScore(query, topK, undefined, config.callbacks as never)).map(([doc, score], index) => toResult(doc, score, index));
}

function documentSearch(documents: readonly KnowledgeDocument[]): Search {
  if (!Array.isArray(documents)) throw invalidSource("documents", documents, "a list of { content, source?, title? } documents");
  documents.forEach((doc, index) => {
    if (typeof doc?.content !== "string") throw invalidSource(`documents[${index}].content`, doc?.content, "a string");
  });
  const index = new MiniSearch<{ id: number; title: string; content: string }>({
    fields: ["title", "content"],
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2 },
  });
  index.addAll(documents.map((doc, id) => ({ id, title: doc.title ?? "", content: doc.content })));
  return async (query) =>
    index.search(query).map((hit) => {
      const doc = documents[hit.id as number]!;
      return { content: doc.content, source: doc.source ?? doc.title ?? `document ${(hit.id as number) + 1}`, score: hit.score };
    });
}

function readScore(doc: DocumentInterface): number | undefined {
  const score = doc.metadata?.score;
  return typeof score === "number" ? score : undefined;
}

function toResult(doc: DocumentInterface, score: number | undefined, index: number): KnowledgeResult {
  const metadata = doc.metadata ?? {};
  const source = [metadata.source, metadata.title, doc.id].find((value) => typeof value === "string" && value) as string | undefined;
  return { content: doc.pageContent, source: source ?? `document ${index + 1}`, score };
}

function invalidSource(argument: string, value: unknown, expected: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument, value, message: `createKnowledgeBaseTool ${argument} must be ${expected}.` });
}
