import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { escapeHtml, pageShell } from "./page-shell";

describe("pageShell", () => {
  const script = 'document.body.dataset.ok = "1";';
  const html = pageShell({ title: 'Run <"x">', data: { text: "</script><script>alert(1)</script><!--" }, script, connect: false });

  it("embeds the data as JSON that no recorded text can end, with every < escaped", () => {
    const json = /<script type="application\/json" id="agentrx-data">(.*)<\/script>/.exec(html)?.[1] as string;
    expect(json).not.toContain("<");
    expect(JSON.parse(json)).toEqual({ text: "</script><script>alert(1)</script><!--" });
    expect(html.match(/<script/g)).toHaveLength(2); // the data and the page's own script
  });

  it("lets only its own script run and, in a file, forbids every request", () => {
    const hash = createHash("sha256").update(script).digest("base64");
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain("connect-src 'none'");
    expect(pageShell({ title: "t", data: {}, script, connect: true })).toContain("connect-src 'self'");
    expect(html).toContain(`<title>${escapeHtml('Run <"x">')}</title>`);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });
});
