import { InvalidArgumentError, checkOptionKeys, cutText } from "@agentrx/core";
import type { DocumentInterface } from "@langchain/core/documents";
import type { BaseRetrieverInterface } from "@langchain/core/retrievers";
import { tool } from "@langchain/core/tools";
import type { VectorStoreInterface } from "@langchain/core/vectorstores";
import MiniSearch from "minisearch";
import { z } from "zod";
import { checkNumberOption } from "../internal/check-number-option";
import { checkOptionsObject, checkToolName } from "../internal/check-options";
import type { TypedTool } from "../typed-tool/typed-tool";

/** A local document for the built-in full-text index. */
export interface KnowledgeDocument {
  /** The text that is searched and returned. */
  content: string;
  /** Where it comes from (file name, URL); shown with each result. @default its title, else "document <n>" */
  source?: string;
  /** A title, searched with a higher weight than the content. */
  title?: string;
}

/**
 * What the knowledge-base tool takes: the query.
 *
 * @example
 * ```ts
 * import type { KnowledgeBaseToolInput } from "@agentrx/tools";
 *
 * const input: KnowledgeBaseToolInput = { query: "paid leave days" };
 * ```
 */
export interface KnowledgeBaseToolInput {
  /** What to look for, in a few keywords or a question (not empty). */
  query: string;
}

/** Options of {@link createKnowledgeBaseTool}: give exactly one of `documents`, `retriever`, `vectorStore`. */
export interface KnowledgeBaseToolOptions {
  /** The tool's name. @default "knowledge_base" */
  name?: string;
  /** What the knowledge base holds, so the model knows when to search it. @default a generic description */
  description?: string;
  /**
   * Local documents, indexed in memory with full-text search (BM25, prefix and fuzzy matching). A
   * search over them runs in one piece that no timeout or signal can stop, so it is bounded: only
   * the query's first 1000 characters and, of those, its first 32 distinct terms are searched (the
   * answer says so when the query was cut); terms of 3 characters or more (or one Chinese or
   * Japanese character) also match as the start of longer words, and terms of 4 to 20 characters
   * also match fuzzily (a fifth of their letters may differ).
   */
  documents?: readonly KnowledgeDocument[];
  /** Any `@langchain/core` retriever; a document's score is read from `metadata.score` when present. */
  retriever?: Pick<BaseRetrieverInterface, "invoke">;
  /**
   * Any `@langchain/core` vector store; results come from `similaritySearchWithScore` (higher is
   * better). That method takes no AbortSignal: an aborted call returns at once, but the search (and
   * the query's embedding) runs to its end; give the store's embeddings client a timeout of its own.
   */
  vectorStore?: Pick<VectorStoreInterface, "similaritySearchWithScore">;
  /** The most results returned (a finite integer >= 1). @default 4 */
  topK?: number;
  /**
   * Results scoring below this are left out. For `documents` the score is minisearch's BM25 score
   * (unbounded); for a vector store, its similarity. Results without a score are kept. @default none
   */
  scoreThreshold?: number;
  /**
   * The longest result, in characters. Local `documents` longer than this are split into passages
   * of at most this many characters (at a paragraph, line, sentence or word boundary where there is
   * one), each searched and returned on its own; a retriever's or a vector store's results are cut
   * to it. @default 2000
   */
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

/** What a search found, and a note for the model when it searched less than the whole query. */
type Found = { results: KnowledgeResult[]; note?: string };
type Search = (query: string, config: { signal?: AbortSignal; callbacks?: unknown }) => Promise<Found>;

/** The most characters of a query searched in local documents; the rest is cut off, and the model told. */
const MAX_QUERY_CHARS = 1000;
/** The most distinct terms of a query searched in local documents (each term is one pass over the index). */
const MAX_QUERY_TERMS = 32;
/**
 * Terms matched as the start of longer words too: shorter ones ("re", "a") would match a good part
 * of the index, except a lone Chinese or Japanese character, which starts few of its two-character pieces.
 */
const MIN_PREFIX_TERM_LENGTH = 3;
/** Terms matched fuzzily (within a fifth of their length in edits, rounded: one for 4 to 7 letters), from this length... */
const MIN_FUZZY_TERM_LENGTH = 4;
/** ...to this one: fuzzy matching a term costs (length + 1)² bytes, and a long term is rarely misspelt alike. */
const MAX_FUZZY_TERM_LENGTH = 20;
/** How much of the query the no-match message repeats. */
const QUOTED_QUERY_CHARS = 80;

/**
 * A knowledge-base retriever tool, like Dify's dataset retriever: the model sends a query and gets
 * the `topK` best passages above `scoreThreshold`, each with its source and score. It searches
 * local `documents` with an embedded full-text index, or any `retriever` or `vectorStore`. Options
 * that are not an object, or that hold a bad value, throw an `InvalidArgumentError` naming it. A
 * search of local documents uses at most the query's first 1000 characters and first 32 distinct
 * terms, and says so in its answer when it did not use them all. A call whose retriever or vector
 * store gives back something other than documents (and numeric scores) fails with a `TypeError`
 * naming the method, what it should give back and what it gave. Its type is a {@link TypedTool}
 * (input {@link KnowledgeBaseToolInput}, output the passages as text).
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
export function createKnowledgeBaseTool(options: KnowledgeBaseToolOptions): TypedTool<KnowledgeBaseToolInput> {
  checkOptionsObject("createKnowledgeBaseTool", options, '{ documents: [{ source: "faq.md", content: "..." }] }');
  checkOptionKeys("createKnowledgeBaseTool", options, KNOWLEDGE_BASE_OPTION_KEYS);
  const { name = "knowledge_base", description, topK = 4, scoreThreshold, maxCharsPerResult = 2000 } = options;
  checkToolName("createKnowledgeBaseTool", name);
  checkNumberOption("topK", topK, { min: 1, integer: true, finite: true });
  checkNumberOption("maxCharsPerResult", maxCharsPerResult, { min: 1, integer: true });
  if (scoreThreshold !== undefined) checkNumberOption("scoreThreshold", scoreThreshold, { min: Number.NEGATIVE_INFINITY });
  if (description !== undefined && typeof description !== "string") throw invalidSource("description", description, "a string");
  const search = buildSearch(options, topK, maxCharsPerResult);
  return tool(
    async ({ query }, config) => {
      const { results, note } = await search(query, { signal: config?.signal, callbacks: config?.callbacks });
      const found = results
        .filter((result) => scoreThreshold === undefined || result.score === undefined || result.score >= scoreThreshold)
        .slice(0, topK);
      if (found.length === 0) {
        const quoted = query.length > QUOTED_QUERY_CHARS ? JSON.stringify(`${cutText(query, QUOTED_QUERY_CHARS)}...`) : JSON.stringify(query);
        return [`No documents in the knowledge base match ${quoted}.`, note].filter(Boolean).join(" ");
      }
      const answer = found
        .map((result, index) => {
          const score = result.score === undefined ? "" : ` (score: ${Number(result.score.toFixed(3))})`;
          const text = result.content.length > maxCharsPerResult ? `${cutText(result.content, maxCharsPerResult)}...` : result.content;
          return `[${index + 1}] source: ${result.source}${score}\n${text}`;
        })
        .join("\n\n");
      return note ? `${answer}\n\n${note}` : answer;
    },
    {
      name,
      description: `Searches a knowledge base and returns the most relevant passages with their sources. ${description ?? ""}`.trim(),
      schema: z.object({ query: z.string().min(1).describe("What to look for, in a few keywords or a question.") }),
    },
  );
}

function buildSearch(options: KnowledgeBaseToolOptions, topK: number, maxChars: number): Search {
  const { documents, retriever, vectorStore } = options;
  const given = [documents, retriever, vectorStore].filter((source) => source !== undefined).length;
  if (given !== 1) {
    throw new InvalidArgumentError({
      argument: "documents",
      value: given,
      message: `createKnowledgeBaseTool needs exactly one of documents, retriever or vectorStore; got ${given}.`,
    });
  }
  // Dispatched on what was given, not on truthiness: a `null` one is refused under its own name.
  if (documents !== undefined) return documentSearch(documents, maxChars);
  if (retriever !== undefined) {
    if (typeof retriever?.invoke !== "function") throw invalidSource("retriever", retriever, "a retriever with invoke(query)");
    const method = "retriever.invoke(query)";
    return async (query, config) => {
      const docs = checkList(await retriever.invoke(query, config as never), method, "a list of documents");
      const results = docs.map((value, index) => {
        const doc = checkDocument(value, index, method);
        return toResult(doc, readScore(doc), index);
      });
      return { results };
    };
  }
  if (typeof vectorStore?.similaritySearchWithScore !== "function") {
    throw invalidSource("vectorStore", vectorStore, "a vector store with similaritySearchWithScore(query, k)");
  }
  const method = "vectorStore.similaritySearchWithScore(query, k)";
  return async (query, config) => {
    const pairs = checkList(await vectorStore.similaritySearchWithScore(query, topK, undefined, config.callbacks as never), method, "a list of [document, score] pairs");
    const results = pairs.map((pair: unknown, index) => {
      if (!Array.isArray(pair)) throw badResults(method, "a list of [document, score] pairs", `result ${index + 1} is ${describeValue(pair)}`);
      const [doc, score] = pair as [unknown, unknown];
      if (typeof score !== "number" || Number.isNaN(score)) throw badResults(method, "a number as each score", `result ${index + 1} has ${describeValue(score)}`);
      return toResult(checkDocument(doc, index, method), score, index);
    });
    return { results };
  };
}

function documentSearch(documents: readonly KnowledgeDocument[], maxChars: number): Search {
  if (!Array.isArray(documents)) throw invalidSource("documents", documents, "a list of { content, source?, title? } documents");
  documents.forEach((doc, index) => {
    if (typeof doc?.content !== "string") throw invalidSource(`documents[${index}].content`, doc?.content, "a string");
    for (const key of ["title", "source"] as const) {
      if (doc[key] !== undefined && typeof doc[key] !== "string") throw invalidSource(`documents[${index}].${key}`, doc[key], "a string");
    }
  });
  // A long document is searched and returned as passages: its matching part, not its beginning.
  const passages = documents.flatMap((doc, index) => {
    // An empty source or title (a loader's missing metadata) names nothing: the next one is used.
    const source = doc.source || doc.title || `document ${index + 1}`;
    const parts = splitPassages(doc.content, maxChars);
    return parts.map((content, part) => ({ title: doc.title ?? "", content, source: parts.length === 1 ? source : `${source}, part ${part + 1} of ${parts.length}` }));
  });
  const index = new MiniSearch<{ id: number; title: string; content: string }>({
    fields: ["title", "content"],
    tokenize,
    searchOptions: {
      boost: { title: 2 },
      prefix: (term) => term.length >= MIN_PREFIX_TERM_LENGTH || UNSPACED_CHARACTER.test(term),
      fuzzy: (term) => (term.length >= MIN_FUZZY_TERM_LENGTH && term.length <= MAX_FUZZY_TERM_LENGTH ? 0.2 : false),
    },
  });
  index.addAll(passages.map((passage, id) => ({ id, title: passage.title, content: passage.content })));
  // minisearch searches every term of the query in one synchronous call, which no timeout can stop:
  // bound it by the query's length and its number of distinct terms, and tell the model.
  return async (query) => {
    const searched = cutText(query, MAX_QUERY_CHARS);
    const terms = [...new Set(tokenize(searched).map((term) => term.toLowerCase()))];
    const used = terms.slice(0, MAX_QUERY_TERMS);
    const hits = used.length === 0 ? [] : index.search(searched, { tokenize: () => used });
    const results = hits.map((hit) => {
      const passage = passages[hit.id as number]!;
      return { content: passage.content, source: passage.source, score: hit.score };
    });
    return { results, note: searchNote(searched.length < query.length, terms.length) };
  };
}

/** Tells the model what of its query was left out of a search, if anything. */
function searchNote(cut: boolean, distinctTerms: number): string | undefined {
  const fewer = distinctTerms > MAX_QUERY_TERMS;
  if (cut && fewer) {
    return `The query was cut to its first ${MAX_QUERY_CHARS} characters, and only the first ${MAX_QUERY_TERMS} of their ${distinctTerms} distinct terms were searched.`;
  }
  if (cut) return `The query was cut to its first ${MAX_QUERY_CHARS} characters.`;
  if (fewer) return `Only the first ${MAX_QUERY_TERMS} of the query's ${distinctTerms} distinct terms were searched.`;
  return undefined;
}

/** Spaces and punctuation, where minisearch's own tokenizer splits. */
const SPACE_OR_PUNCTUATION = /[\n\r\p{Z}\p{P}]+/u;
/** Scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
/** One character of those scripts. */
const UNSPACED_CHARACTER = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;

/**
 * Splits text into terms like minisearch's default, but a run of Chinese or Japanese characters
 * (written without spaces) becomes its overlapping two-character pieces: "带薪假期" is 带薪, 薪假, 假期,
 * so a query for "带薪" finds it; as one term it would only match the whole run. The text is
 * NFKC-normalised first, for documents and queries alike, so "é" written as e and an accent, or a
 * full-width "ｌｅａｖｅ", match their usual forms (the passages returned keep their own text).
 */
function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const token of text.normalize("NFKC").split(SPACE_OR_PUNCTUATION)) {
    if (token === "") continue;
    let last = 0;
    for (const match of token.matchAll(UNSPACED)) {
      if (match.index > last) terms.push(token.slice(last, match.index));
      const run = [...match[0]];
      if (run.length === 1) terms.push(run[0]!);
      for (let i = 0; i + 1 < run.length; i++) terms.push(run[i]! + run[i + 1]!);
      last = match.index + match[0].length;
    }
    if (last < token.length) terms.push(token.slice(last));
  }
  return terms;
}

/**
 * Splits `text` into passages of at most `maxChars` characters, each ending at the last paragraph
 * break, line break, sentence end or space of its window (in that order of preference, when one
 * lies in the window's second half), else cut there; never inside a UTF-16 surrogate pair. A
 * sentence ends at `.`, `!` or `?` before a space, or at Chinese and Japanese `。`, `！` or `？`,
 * which no space follows.
 */
function splitPassages(text: string, maxChars: number): string[] {
  const passages: string[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    const window = text.slice(start, start + maxChars + 1);
    let end = -1;
    for (const boundary of [/\n\s*\n/g, /\n/g, /[.!?](?=\s)|[。！？]/g, /\s/g]) {
      for (const match of window.matchAll(boundary)) {
        const at = match.index + match[0].length;
        if (at > maxChars / 2 && at <= maxChars) end = at;
      }
      if (end !== -1) break;
    }
    // No boundary: cut (a lone surrogate pair when maxChars is 1 stays whole).
    if (end === -1) end = cutText(window, maxChars).length || 2;
    const passage = window.slice(0, end).trim();
    if (passage !== "") passages.push(passage);
    start += end;
  }
  const last = text.slice(start).trim();
  if (last !== "" || passages.length === 0) passages.push(last === "" ? text.slice(start) : last);
  return passages;
}

function readScore(doc: DocumentInterface): number | undefined {
  const score = doc.metadata?.score;
  return typeof score === "number" && !Number.isNaN(score) ? score : undefined;
}

function checkList(value: unknown, method: string, expected: string): unknown[] {
  if (!Array.isArray(value)) throw badResults(method, expected, `got ${describeValue(value)}`);
  return value;
}

function checkDocument(doc: unknown, index: number, method: string): DocumentInterface {
  if (typeof (doc as DocumentInterface | undefined)?.pageContent !== "string") {
    throw badResults(method, "documents with a pageContent string", `result ${index + 1} is ${describeValue(doc)}`);
  }
  return doc as DocumentInterface;
}

/** The error of a call whose retriever or vector store gave back something else than results. */
function badResults(method: string, expected: string, got: string): TypeError {
  return new TypeError(`createKnowledgeBaseTool ${method} must give back ${expected}; ${got}.`);
}

/** A short description of a value of unknown shape, for an error message. */
function describeValue(value: unknown): string {
  if (typeof value === "string") return value.length > 40 ? `${JSON.stringify(cutText(value, 40))}...` : JSON.stringify(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    if (keys.length === 0) return "an object with no keys";
    return `an object with keys ${keys.slice(0, 5).join(", ")}${keys.length > 5 ? ", ..." : ""}`;
  }
  return typeof value === "function" ? "a function" : String(value);
}

function toResult(doc: DocumentInterface, score: number | undefined, index: number): KnowledgeResult {
  const metadata = doc.metadata ?? {};
  const source = [metadata.source, metadata.title, doc.id].find((value) => typeof value === "string" && value) as string | undefined;
  return { content: doc.pageContent, source: source ?? `document ${index + 1}`, score };
}

function invalidSource(argument: string, value: unknown, expected: string): InvalidArgumentError {
  return new InvalidArgumentError({ argument, value, message: `createKnowledgeBaseTool ${argument} must be ${expected}, got ${describeValue(value)}.` });
}
