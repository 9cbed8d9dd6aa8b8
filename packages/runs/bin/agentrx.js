#!/usr/bin/env node
// The `agentrx` command. The CLI itself is built into dist/cli (`npm run build:cli`, which the
// repository's `npm install` runs); this file exists before any build, so npm links the command
// at install time without the package needing an install script.
import "../dist/cli/agentrx.js";
