// The diff page's script, bundled into a string at build time (scripts/build-page-scripts.mjs).
import { diffPageMain } from "../diff-page/diff-page-main";
import { domRuntime } from "../trace-page/page/dom-runtime";
import { formatRuntime } from "../trace-page/page/format-runtime";
import { readPageData } from "./read-page-data";

diffPageMain(domRuntime(), formatRuntime(), readPageData(), document.getElementById("app") as HTMLElement);
