// The `ui`'s run list script, bundled into a string at build time (scripts/build-page-scripts.mjs).
import { domRuntime } from "../trace-page/page/dom-runtime";
import { formatRuntime } from "../trace-page/page/format-runtime";
import { runListMain } from "../ui/run-list-main";
import { readPageData } from "./read-page-data";

runListMain(domRuntime(), formatRuntime(), readPageData(), document.getElementById("app") as HTMLElement);
