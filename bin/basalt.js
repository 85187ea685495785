#!/usr/bin/env node
// Entry point of the `basalt` command: runs the compiled CLI (npm run build).
import "../dist/src/cli/main.js";
