/**
 * The `basalt` command: parses options (flags > BASALT_* env > --env-file > defaults) and
 * runs init, import, export, snapshot, proofs, db, doctor, devnet or node; `basalt bench` hands its arguments to the bench suite.
 */
import { readFileSync } from "node:fs";
import { parseCli } from "./args.js";
import { renderHelp } from "./help.js";
import { createLogger } from "../util/logger.js";
import { BasaltError } from "../util/errors.js";
import { initCommand } from "./commands/init.js";
import { importCommand } from "./commands/import.js";
import { exportCommand } from "./commands/export.js";
import { snapshotCommand } from "./commands/snapshot.js";
import { proofsCommand } from "./commands/proofs.js";
import { dbCommand } from "./commands/db.js";
import { nodeCommand } from "./commands/node.js";
import { benchCommand } from "./commands/bench.js";
import { doctorCommand } from "./commands/doctor.js";
import { devnetCommand } from "./commands/devnet.js";

async function main(argv: string[]): Promise<void> {
  const parsed = parseCli(argv, process.env);
  if (parsed.command === "help") {
    process.stdout.write(renderHelp(parsed.positionals[0]) + "\n");
    return;
  }
  if (parsed.command === "version") {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
    process.stdout.write(`basalt ${pkg.version}\n`);
    return;
  }
  if (parsed.command === "bench") return benchCommand(parsed.positionals);
  const opts = parsed.options;
  const log = createLogger(opts["log.level"], opts["log.format"]);
  switch (parsed.command) {
    case "init":
      return initCommand(opts, log);
    case "import":
      return importCommand(opts, parsed.positionals, log);
    case "export":
      return exportCommand(opts, parsed.positionals, log);
    case "snapshot":
      return snapshotCommand(opts, parsed.positionals, log, parsed.sources.network !== "default", parsed.force === true);
    case "proofs":
      return proofsCommand(opts, parsed.positionals, log);
    case "db":
      return dbCommand(opts, parsed.positionals, log);
    case "doctor":
      return doctorCommand(opts, parsed.sources, { json: parsed.json === true });
    case "node":
      return nodeCommand(opts, log, parsed.sources.network !== "default");
    case "devnet":
      return devnetCommand(opts, parsed.sources, log);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  const msg = e instanceof BasaltError ? `${e.message}` : e instanceof Error ? (e.stack ?? e.message) : String(e);
  process.stderr.write(`basalt: ${msg}\n`);
  process.exit(1);
});
