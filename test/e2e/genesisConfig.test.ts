/**
 * End-to-end: a genesis file basalt cannot run (an unknown fork, a malformed blob schedule) is
 * refused by `basalt init --genesis` and `basalt node --network <file>` with one line naming the key, what
 * was wrong and what was expected — no stack trace — and nothing is written to the datadir. A
 * genesis with BPO forks up to BPO4 (and their blob schedule) initializes.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeCliResult, makeTempDir, removeDir, runCli, stopAllProcesses } from "../helpers/basaltProcess.js";
import { getFreePorts } from "../helpers/ports.js";
import { ethereumGenesis } from "../helpers/ethereumGenesis.js";
import type { GenesisJson } from "../../src/chain/genesis.js";

const dirs: string[] = [];
afterAll(async () => {
  await stopAllProcesses();
  for (const d of dirs) await removeDir(d);
});

/** Blob parameters of one fork (Ethereum's Prague values; BPO values need only be well-formed here). */
const BLOB = { target: 6, max: 9, baseFeeUpdateFraction: 5_007_716 };

/** A plain Ethereum genesis, every fork through Osaka at genesis and BPO1–BPO4 later, with `config` merged in. */
function genesis(config: Record<string, unknown>): GenesisJson {
  const forks = { shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 0, bpo1Time: 100, bpo2Time: 200, bpo3Time: 300, bpo4Time: 400 };
  const blobSchedule = { cancun: BLOB, prague: BLOB, osaka: BLOB, bpo1: BLOB, bpo2: BLOB, bpo3: BLOB, bpo4: BLOB };
  return ethereumGenesis(31_337, { ...forks, blobSchedule, ...config }, { "0x00000000000000000000000000000000000000aa": { balance: "0x1" } });
}

/** Writes `g` to a file in a new temp dir; returns the file and a datadir path beside it (not created). */
async function files(g: GenesisJson): Promise<{ file: string; datadir: string }> {
  const dir = await makeTempDir("basalt-genesis-config-");
  dirs.push(dir);
  const file = path.join(dir, "genesis.json");
  await writeFile(file, JSON.stringify(g));
  return { file, datadir: path.join(dir, "data") };
}

/** The refusal of an unknown BPO fork in the blob schedule, as basalt prints it. */
const UNKNOWN_FORK_LINE = 'basalt: genesis config.blobSchedule.bpo6: unknown fork "bpo6"; expected one of cancun, prague, osaka, bpo1, bpo2, bpo3, bpo4, bpo5\n';

describe("genesis config refusals (e2e)", () => {
  it("basalt init --genesis refuses an unknown fork with one line and writes nothing", async () => {
    const { file, datadir } = await files(genesis({ bpo6Time: 500, blobSchedule: { cancun: BLOB, prague: BLOB, osaka: BLOB, bpo1: BLOB, bpo2: BLOB, bpo3: BLOB, bpo4: BLOB, bpo6: BLOB } }));
    const args = ["init", "--datadir", datadir, "--genesis", file];
    const r = await runCli(args);
    expect(r.code, describeCliResult(args, r)).toBe(1);
    expect(r.stderr).toBe(UNKNOWN_FORK_LINE);
    expect(existsSync(path.join(datadir, "chain"))).toBe(false);
  });

  it("basalt init --genesis refuses a scheduled BPO fork without its blob parameters", async () => {
    const { file, datadir } = await files(genesis({ blobSchedule: { cancun: BLOB, prague: BLOB, osaka: BLOB, bpo1: BLOB, bpo2: BLOB, bpo4: BLOB } }));
    const args = ["init", "--datadir", datadir, "--genesis", file];
    const r = await runCli(args);
    expect(r.code, describeCliResult(args, r)).toBe(1);
    expect(r.stderr).toBe("basalt: genesis config.bpo3Time is set but config.blobSchedule has no bpo3 entry; expected its target, max and baseFeeUpdateFraction\n");
  });

  it("basalt node --network <genesis file> refuses it the same way before starting anything", async () => {
    const { file, datadir } = await files(genesis({ bpo6Time: 500, blobSchedule: { cancun: BLOB, prague: BLOB, osaka: BLOB, bpo1: BLOB, bpo2: BLOB, bpo3: BLOB, bpo4: BLOB, bpo6: BLOB } }));
    const [http, ws, auth, metrics, rollup] = await getFreePorts(5);
    const ports = ["--http.port", http, "--ws.port", ws, "--authrpc.port", auth, "--metrics.port", metrics, "--rollup.port", rollup].map(String);
    const args = ["node", "--datadir", datadir, "--network", file, "--p2p.el.disable", ...ports];
    const r = await runCli(args);
    expect(r.code, describeCliResult(args, r)).toBe(1);
    expect(r.stderr).toBe(UNKNOWN_FORK_LINE);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/^\s+at /m);
  });

  it("basalt init --genesis accepts BPO1–BPO4 with their blob schedule", async () => {
    const { file, datadir } = await files(genesis({}));
    const args = ["init", "--datadir", datadir, "--genesis", file];
    const r = await runCli(args);
    expect(r.code, describeCliResult(args, r)).toBe(0);
    expect(existsSync(path.join(datadir, "chain"))).toBe(true);
  });
});
