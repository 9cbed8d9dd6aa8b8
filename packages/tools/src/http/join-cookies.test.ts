import { describe, expect, it } from "vitest";
import { cookieNames, joinCookies } from "./join-cookies";

describe("joinCookies", () => {
  it("keeps the caller's cookies beside the fixed ones, the fixed ones overriding a cookie of the same name", () => {
    expect(joinCookies("session=abc", "theme=dark; lang=en")).toBe("session=abc; theme=dark; lang=en");
    expect(joinCookies("session=abc; ", "session=forged; theme=dark")).toBe("session=abc; theme=dark");
    expect(joinCookies("session=abc", "")).toBe("session=abc");
  });

  it("names the cookies of a Cookie header", () => {
    expect([...cookieNames(" a=1;b=2=3 ; ;c")]).toEqual(["a", "b", "c"]);
  });
});
