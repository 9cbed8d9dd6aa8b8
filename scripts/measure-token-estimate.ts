// Measures the default token estimate of ThreadMemory (`estimateTextTokens`) against OpenAI's
// o200k_base, text by text, on this repository's docs, sources and manifests and on the chat
// messages and sentences in 14 languages below; prints the table of docs/memory.md.
// `npx tsx scripts/measure-token-estimate.ts` (js-tiktoken, which ships its tables in the package,
// is installed with @langchain/core).
import { execSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { estimateTextTokens } from "@agentrx/runs";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k_base from "js-tiktoken/ranks/cl100k_base";
import o200k_base from "js-tiktoken/ranks/o200k_base";

const OTHER_LANGUAGES: string[] = [
  "Bonjour ! Je voudrais réserver une table pour quatre personnes samedi soir, vers vingt heures. Est-ce que vous avez encore de la place en terrasse ?",
  "Le rapport trimestriel montre une hausse de 12 % du chiffre d'affaires, principalement grâce aux ventes en ligne et à l'ouverture de deux nouveaux magasins à Lyon.",
  "Könnten Sie mir bitte erklären, wie ich mein Passwort zurücksetzen kann? Ich habe die E-Mail mit dem Bestätigungslink nicht erhalten.",
  "Die Bundesregierung hat am Mittwoch ein neues Klimaschutzgesetz beschlossen, das die Emissionen bis 2030 um 65 Prozent senken soll.",
  "¿Cuál es el mejor momento del año para visitar la Patagonia? Me interesa hacer senderismo y ver glaciares sin demasiados turistas.",
  "Привет! Можешь помочь мне перевести этот текст на английский? Это письмо для клиента, и оно должно звучать вежливо и профессионально.",
  "Москва — столица России и крупнейший по численности населения город страны, важный политический, экономический и культурный центр.",
  "今天的天气怎么样？我打算下午去公园散步，如果下雨的话就改成去图书馆看书。",
  "人工智能正在改变许多行业，从医疗诊断到金融分析，越来越多的公司开始使用大型语言模型来提高工作效率。",
  "明日の会議は午前十時から始まります。資料は事前に共有フォルダにアップロードしておいてください。",
  "東京は日本の首都であり、世界でも有数の大都市です。多くの観光客が毎年訪れます。",
  "안녕하세요! 내일 오후 세 시에 회의실을 예약하고 싶은데, 가능한지 확인해 주실 수 있나요?",
  "مرحبا، أريد أن أعرف مواعيد عمل المكتبة خلال عطلة نهاية الأسبوع، وهل يمكنني استعارة أكثر من ثلاثة كتب في المرة الواحدة؟",
  "Olá! Preciso de ajuda para configurar o meu novo router. A luz de internet continua a piscar em laranja.",
  "Ciao, potresti consigliarmi un buon ristorante vicino alla stazione centrale di Milano? Preferibilmente con cucina tradizionale.",
  "Merhaba, siparişim hâlâ gelmedi. Kargo takip numarası 48213 ama sistemde hiçbir güncelleme görünmüyor.",
  "नमस्ते, क्या आप मुझे बता सकते हैं कि दिल्ली से जयपुर जाने के लिए सबसे अच्छी ट्रेन कौन सी है?",
  "Xin chào, tôi muốn đặt một phòng đôi cho hai đêm, từ thứ sáu đến chủ nhật. Khách sạn có bữa sáng không?",
  "Thanks so much! 🎉🙏 That worked perfectly 👍 See you tomorrow 😊",
];
const CHAT: string[] = [
  "Hi, my name is Ada. What's the weather like in Paris today?",
  "Sure! It's currently 21°C and sunny in Paris, with a light breeze from the northwest.",
  "Can you remind me what I asked you about yesterday?",
  "You asked me to summarize the quarterly report and to draft an email to the marketing team about the product launch on March 14th.",
  "What's 15% of 2,340?",
  "15% of 2,340 is 351.",
  "Please book a table for two at 7:30pm and send the confirmation to ada@example.com.",
  "I couldn't find a restaurant called \"Chez Marcel\" near you. Did you mean \"Chez Marcelle\" on Rue de la Paix?",
  "ok",
  "Thanks!",
  "Write a haiku about autumn leaves falling on a quiet river.",
  "Red leaves drift and fall,\nthe river carries their hush—\nautumn slips away.",
  "How do I reverse a string in Python?",
  "You can use slicing: `reversed_text = text[::-1]`. For example, `\"hello\"[::-1]` returns `\"olleh\"`.",
  "Explain the difference between TCP and UDP in simple terms.",
  "TCP is like a phone call: a connection is set up first, and everything you say arrives in order, or the call notices it was lost and repeats it. UDP is like sending postcards: each one travels on its own, quickly, but some may arrive late, out of order, or not at all. Video calls and games often use UDP because speed matters more than the occasional lost packet, while web pages and file downloads use TCP because every byte must arrive.",
  "My order #A-99812 hasn't arrived yet. It was supposed to be delivered on 2024-05-03.",
  "I'm sorry about the delay. According to the carrier, your parcel is in transit and should arrive within 2–3 business days. Would you like me to open a claim?",
  "Translate 'good morning, how did you sleep?' into Spanish and German.",
  "Spanish: \"Buenos días, ¿cómo dormiste?\"\nGerman: \"Guten Morgen, wie hast du geschlafen?\"",
  "what time is it in tokyo rn",
  "It's 3:42 AM on Thursday in Tokyo (JST, UTC+9).",
  "Summarize this: The meeting covered three topics. First, the budget for Q3 was approved with a 5% increase for engineering. Second, the hiring plan was postponed until the new VP joins. Third, the team agreed to move the weekly sync from Monday to Tuesday mornings.",
  "- Q3 budget approved (+5% for engineering)\n- Hiring plan on hold until the new VP starts\n- Weekly sync moves to Tuesday mornings",
  "Do you remember my name?",
  "Yes, you told me your name is Ada.",
  "Find flights from SFO to JFK next Friday under $400.",
  "I found 3 options: United UA 1549 departing 08:05, $312; JetBlue B6 916 departing 11:30, $289; and Delta DL 2211 departing 22:45 (red-eye), $254.",
];

const files = (pattern: string) => execSync(`ls ${pattern}`, { encoding: "utf8" }).trim().split("\n");
const read = (file: string) => readFileSync(file, "utf8");
const chunks = (text: string, size: number, max = Infinity) => Array.from({ length: Math.min(Math.ceil(text.length / size), max) }, (_, index) => text.slice(index * size, (index + 1) * size));
/** The prose paragraphs (over 60 characters) and the code blocks of a markdown file. */
function markdown(file: string): { prose: string[]; code: string[] } {
  const parts = read(file).split(/```[a-z]*\n/);
  return {
    prose: parts.filter((_, index) => index % 2 === 0).flatMap((part) => part.split(/\n\n+/)).filter((paragraph) => paragraph.length > 60),
    code: parts.filter((_, index) => index % 2 === 1),
  };
}

const docs = [...readdirSync("docs").filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`), "README.md"].map(markdown);
const readmes = ["packages/agents/README.md", "packages/core/README.md", "packages/tools/README.md", "packages/executors/README.md", ".changeset/README.md"].map(markdown);
const corpus: [string, string[]][] = [
  ["English prose (docs)", docs.flatMap((doc) => doc.prose)],
  ["English prose (READMEs, not used to tune)", readmes.flatMap((doc) => doc.prose)],
  ["chat messages", CHAT],
  ["code (docs blocks, run store sources)", [...docs.flatMap((doc) => doc.code), ...["packages/runs/src/sqlite/sqlite-run-store.ts", "packages/executors/src/runs/run-store.ts", "packages/runs/src/postgres/postgres-queries.ts"].flatMap((file) => chunks(read(file), 1500))]],
  ["code (agents, core, tools; not used to tune)", files("packages/agents/src/*/*.ts packages/core/src/*/*.ts packages/tools/src/*/*.ts | grep -v test | head -40").flatMap((file) => chunks(read(file), 1500, 4))],
  ["JSON (manifests, a tool result)", [...files("packages/*/package.json examples/*/package.json tsconfig.base.json .changeset/config.json").map((file) => JSON.stringify(JSON.parse(read(file)))), JSON.stringify({ results: [{ title: "Paris weather", temp: 21.5, conditions: "sunny", wind: { speed: 12, dir: "NW" } }, { title: "Lyon", temp: 18, conditions: "cloudy" }] })]],
  ["hashes and ids (package-lock.json)", Array.from({ length: 40 }, (_, index) => read("package-lock.json").slice(index * 3000, index * 3000 + 1500))],
  ["other languages", OTHER_LANGUAGES],
];

const o200k = new Tiktoken(o200k_base);
const cl100k = new Tiktoken(cl100k_base);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
let estimated = 0;
let measured = 0;
const baseline: number[] = [];
console.log("| text | samples | mean error | 90% of texts within | worst | bias | cl100k / o200k |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const [name, texts] of corpus) {
  const errors = texts.map((text) => {
    const actual = o200k.encode(text).length;
    const estimate = estimateTextTokens(text);
    estimated += estimate;
    measured += actual;
    baseline.push(Math.abs(Math.ceil(text.length / 4) - actual) / actual);
    return (estimate - actual) / actual;
  });
  const absolute = errors.map(Math.abs).sort((a, b) => a - b);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const ratio = texts.reduce((sum, text) => sum + cl100k.encode(text).length, 0) / texts.reduce((sum, text) => sum + o200k.encode(text).length, 0);
  console.log(`| ${name} | ${texts.length} | ${percent(mean(absolute))} | ${percent(absolute[Math.floor(absolute.length * 0.9)] ?? 0)} | ${percent(absolute.at(-1) ?? 0)} | ${percent(mean(errors))} | ${ratio.toFixed(2)} |`);
}
baseline.sort((a, b) => a - b);
console.log(`\nAll texts: the estimate totals ${percent(estimated / measured - 1)} against o200k_base.`);
console.log(`characters / 4 on the same texts: mean error ${percent(baseline.reduce((sum, value) => sum + value, 0) / baseline.length)}, 90% within ${percent(baseline[Math.floor(baseline.length * 0.9)] ?? 0)}.`);
