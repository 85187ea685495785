/**
 * Test helper: loads the hive rpc-compat Prague chain (`chain.rlp`, `genesis.json`) and the
 * expected responses of the `.io` fixtures next to it.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createBlockFromRLP, type Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { fileURLToPath } from "node:url";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import type { GenesisJson } from "../../../src/chain/genesis.js";

/** Where the execution-apis fixtures live. */
export const FIXTURES_DIR = fileURLToPath(new URL("../../../../shared/fixtures/execution-apis/prague", import.meta.url));

if (!existsSync(join(FIXTURES_DIR, "chain.rlp"))) {
  throw new Error(`execution-apis fixtures not found at ${FIXTURES_DIR} (expected ../shared/fixtures beside the repository)`);
}

/** One request/response exchange of an `.io` fixture. */
export interface Exchange {
  request: { method: string; params: unknown[] };
  /** The raw `<<` line (byte-exact JSON text of the expected response). */
  responseText: string;
  response: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
}

/** A parsed `.io` fixture file. */
export interface Fixture {
  name: string;
  exchanges: Exchange[];
}

/** Reads every `.io` fixture of one method directory; throws when there is none (a loop over nothing would pass). */
export function loadFixtures(method: string): Fixture[] {
  const dir = join(FIXTURES_DIR, method);
  const fixtures = readdirSync(dir)
    .filter((f) => f.endsWith(".io"))
    .sort()
    .map((f) => {
      const lines = readFileSync(join(dir, f), "utf8").split("\n");
      const exchanges: Exchange[] = [];
      let pending: Exchange["request"] | undefined;
      for (const line of lines) {
        if (line.startsWith(">> ")) pending = JSON.parse(line.slice(3)) as Exchange["request"];
        else if (line.startsWith("<< ") && pending !== undefined) {
          const text = line.slice(3);
          exchanges.push({ request: pending, responseText: text, response: JSON.parse(text) as Exchange["response"] });
          pending = undefined;
        }
      }
      if (exchanges.length === 0) throw new Error(`${dir}/${f} has no request/response exchange`);
      return { name: `${method}/${f}`, exchanges };
    });
  if (fixtures.length === 0) throw new Error(`no .io fixture in ${dir}`);
  return fixtures;
}

/** A decoded block with its recovered senders. */
export interface ChainBlock {
  block: Block;
  senders: Uint8Array[];
  hashHex: string;
}

let cached: ChainBlock[] | undefined;

/** Decodes blocks 1..N of `chain.rlp` (cached). */
export function loadChain(): ChainBlock[] {
  if (cached !== undefined) return cached;
  const genesis = JSON.parse(readFileSync(join(FIXTURES_DIR, "genesis.json"), "utf8")) as GenesisJson;
  const common = commonFromGenesis(genesis, "hive");
  let bytes: Uint8Array = new Uint8Array(readFileSync(join(FIXTURES_DIR, "chain.rlp")));
  const out: ChainBlock[] = [];
  while (bytes.length > 0) {
    const { remainder } = RLP.decode(bytes, true);
    const item = bytes.subarray(0, bytes.length - remainder.length);
    bytes = remainder;
    const block = createBlockFromRLP(item, { common, setHardfork: true });
    const senders = block.transactions.map((tx) => tx.getSenderAddress().bytes);
    out.push({ block, senders, hashHex: "0x" + Buffer.from(block.hash()).toString("hex") });
  }
  cached = out;
  return out;
}
