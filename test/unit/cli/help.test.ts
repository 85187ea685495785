import { describe, expect, it } from "vitest";
import { CliError } from "../../../src/cli/args.js";
import { defaultText, renderHelp } from "../../../src/cli/help.js";
import { DEFAULT_HTTP_PORT, MAX_REQUEST_BODY_BYTES } from "../../../src/config/constants.js";
import { COMMANDS, OPTION_LIST, envVarName, optionsFor } from "../../../src/config/options.js";

describe("renderHelp", () => {
  it("lists the usage of every command", () => {
    const text = renderHelp();
    expect(text).toContain("basalt [node] [options]");
    expect(text).toContain("basalt init --datadir D --genesis G.json");
    expect(text).toContain("basalt import --datadir D");
    expect(text).toContain("<chain.rlp>...");
    expect(text).toContain("basalt export --datadir D [--from N --to M]");
    expect(text).toContain("<out.rlp>");
  });

  it("documents every option with its type, default and environment variable", () => {
    const text = renderHelp();
    for (const o of OPTION_LIST) {
      expect(text, o.name).toContain(`--${o.name}`);
      expect(text, o.name).toContain(o.description);
      expect(text, o.name).toContain(envVarName(o.name));
      const d = defaultText(o);
      if (d !== undefined) expect(text, o.name).toContain(`default: ${d}`);
    }
    expect(text).toContain(`default: ${DEFAULT_HTTP_PORT}`);
    expect(text).toContain(`default: ${MAX_REQUEST_BODY_BYTES}`);
    expect(text).toContain("default: ./data/<network>");
    expect(text).toContain("default: <datadir>/jwt.hex, generated if absent");
    expect(text).toContain("default: true on devnet");
    expect(text).toContain("type: number");
    expect(text).toContain("--archive, --no-archive");
    expect(text).toContain("one of: trace, debug, info, warn, error");
  });

  it("shows each command's own options only", () => {
    for (const c of COMMANDS) {
      const text = renderHelp(c);
      const mine = optionsFor(c);
      for (const o of OPTION_LIST) {
        const shown = new RegExp(`^  --${o.name.replace(/[.]/g, "\\.")}[ ,]`, "m").test(text);
        expect(shown, `${c} ${o.name}`).toBe(mine.includes(o));
      }
    }
    expect(renderHelp("init")).toContain("basalt init --datadir D --genesis G.json");
    expect(renderHelp("node")).toContain("JSON-RPC options:");
    expect(renderHelp("export")).toContain("Import/export options:");
  });

  it("rejects an unknown command", () => {
    expect(() => renderHelp("nope")).toThrow(CliError);
  });
});
