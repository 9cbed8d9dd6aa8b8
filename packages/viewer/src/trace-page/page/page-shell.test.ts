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
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]{24})'/.exec(html)?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<script nonce="${nonce}">${script}</script>`);
    expect(html.match(/<script nonce=/g)).toHaveLength(1); // the data is JSON, not a script that runs
    const other = /script-src 'nonce-([^']+)'/.exec(pageShell({ title: "t", data: {}, script, connect: false }))?.[1];
    expect(other).not.toBe(nonce); // fresh for every page
    expect(html).toContain("default-src 'none'");
    expect(html).toContain("connect-src 'none'");
    expect(pageShell({ title: "t", data: {}, script, connect: true })).toContain("connect-src 'self'");
    expect(html).toContain(`<title>${escapeHtml('Run <"x">')}</title>`);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });
});
