/**
 * Gate (issue 27): no control flow on an error's message text. basalt's errors carry every
 * distinction in their code and typed meta (docs: "never branch on an error's message text");
 * the only code that reads a message to decide something is src/util/foreignErrorText.ts, for
 * errors of code basalt does not own that state their reason only in text (@ethereumjs's
 * transaction refusals, the JSON-RPC and HTTP answers of other nodes).
 */
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/basaltProcess.js";
import { messageControlFlow, readSources } from "../helpers/sourceGates.js";

/** The one file allowed to branch on message text, and why (its module comment says the same). */
const ALLOWED = "src/util/foreignErrorText.ts";

describe("no control flow on an error's message", () => {
  it(`src/ and workers/ branch on a message only in ${ALLOWED}`, () => {
    const files = readSources(REPO_ROOT, ["src", "workers"]);
    expect(files.some((f) => f.path === ALLOWED)).toBe(true);
    const sites = messageControlFlow(files.filter((f) => f.path !== ALLOWED)).map((s) => `${s.at} ${s.code}`);
    expect(sites).toEqual([]);
  });

  it("the allowed file does branch on message text (the scan sees it)", () => {
    const allowed = readSources(REPO_ROOT, ["src/util"]).filter((f) => f.path === ALLOWED);
    expect(messageControlFlow(allowed).length).toBeGreaterThan(0);
  });

  it("the check finds each form of branching on a message, and leaves formatting and typed fields alone", () => {
    const text = [
      "try { f(); } catch (e) {",
      '  if (/lock/i.test((e as Error).message)) throw e;', // 2
      '  if (e.message.includes("nonce")) return 1;', // 3
      '  if (err.message === "boom") return 2;', // 4
      "  const m = e instanceof Error ? e.message : String(e);",
      '  if (m.toLowerCase().startsWith("x")) return 3;', // 6
      "  switch (e.message) {}", // 7
      '  const found = RE.exec(e.message)?.[1];', // 8
      "  log.warn({ reason: e.message }, `failed: ${e.message}`);",
      '  if (e.meta.message === "frame") return 4;',
      '  if (typeof o.message !== "string") return 5;',
      "  if (e.message !== previous) log.error(e);",
      '  // if (/x/.test(e.message)) a comment',
      "  return e.message.replace(/ -> .*$/s, \"\");",
      "}",
      "function classify(message: string) { return /route/.test(message); }", // 16
    ].join("\n");
    const sites = messageControlFlow([{ path: "src/x.ts", text }]).map((s) => s.at);
    expect(sites).toEqual(["src/x.ts:2", "src/x.ts:3", "src/x.ts:4", "src/x.ts:6", "src/x.ts:7", "src/x.ts:8", "src/x.ts:16"]);
  });
});
