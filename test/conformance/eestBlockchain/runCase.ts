/**
 * Runs one blockchain-test case through basalt's own import path, as `basalt init` and
 * `basalt import` do: `Chain.init` writes the case's genesis into a fresh datadir, `Chain.open`
 * opens it, and each block's RLP goes through `decodeBlockFromRlp` and `Chain.importBlock` (header
 * checks, execution, root checks, commit as the new head). Then the head and the flat state of the
 * datadir are compared with the fixture.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { bigIntToBytes, bytesToBigInt, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { Chain } from "../../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../../src/chain/blockCodec.js";
import { BasaltError } from "../../../src/util/errors.js";
import { to0x } from "../../../src/util/bytes.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { accountFromSlim } from "../../../src/execution/state/stateReader.js";
import type { BlockchainTestCase, RawAccount } from "./fixtures.js";

/** What happened to one block of a case. */
export interface BlockOutcome {
  /** Index in `blocks`. */
  index: number;
  /** The fixture expects a rejection (its `expectException`), or undefined for a valid block. */
  expected?: string;
  /** basalt's rejection (`CODE: message`), or undefined when it imported the block. */
  rejected?: string;
}

/** The result of one case. */
export interface CaseOutcome {
  /** What differed from the fixture (one line), or undefined when the case passed. */
  failure?: string;
  blocks: BlockOutcome[];
}

/** A fixture quantity ("0x…", any padding) as a bigint ("0x" = 0). */
const big = (hex: string): bigint => (hex === "0x" ? 0n : BigInt(hex));

/** A storage key of the fixture as the store's 32-byte slot (0x hex). */
const slotHex = (key: string): string => to0x(setLengthLeft(bigIntToBytes(big(key)), 32));

/** Differences between the datadir's flat state at the head and `post` (empty = equal). The store is keyed by hashed address and slot. */
export function stateDifferences(chain: Chain, post: Record<string, RawAccount>): string[] {
  const diffs: string[] = [];
  const store = chain.store;
  // hashed address → (address, expected account)
  const expected = new Map(Object.entries(post).map(([a, v]) => [to0x(keccak256(hexToBytes(a as `0x${string}`))), { address: a.toLowerCase(), want: v }]));
  const seen = new Set<string>();
  for (const { key, value } of store.hashedAccounts.getRange({})) {
    const hashed = to0x(key);
    seen.add(hashed);
    const entry = expected.get(hashed);
    if (entry === undefined) {
      diffs.push(`account with hashed address ${hashed} exists, not in postState`);
      continue;
    }
    const { address, want } = entry;
    const acct = accountFromSlim(value)!;
    if (acct.balance !== big(want.balance)) diffs.push(`${address} balance ${acct.balance}, expected ${big(want.balance)}`);
    if (acct.nonce !== big(want.nonce)) diffs.push(`${address} nonce ${acct.nonce}, expected ${big(want.nonce)}`);
    const code = store.getCode(acct.codeHash);
    const codeHex = code === undefined ? "0x" : to0x(code);
    if (acct.isContract() && code === undefined) diffs.push(`${address} code ${to0x(acct.codeHash)} missing from the store`);
    else if (codeHex !== want.code.toLowerCase()) diffs.push(`${address} code differs (${(codeHex.length - 2) / 2} bytes, expected ${(want.code.length - 2) / 2})`);
    // hashed slot → (slot, value)
    const wantSlots = new Map<string, [string, bigint]>();
    for (const [k, v] of Object.entries(want.storage)) if (big(v) !== 0n) wantSlots.set(to0x(keccak256(hexToBytes(slotHex(k) as `0x${string}`))), [slotHex(k), big(v)]);
    const haveSlots = new Map<string, bigint>();
    for (const { hashedSlot, value: v } of store.storageSlots(key)) haveSlots.set(to0x(hashedSlot), bytesToBigInt(v));
    for (const [h, [k, v]] of wantSlots) if (haveSlots.get(h) !== v) diffs.push(`${address} slot ${k} = ${haveSlots.get(h) ?? 0n}, expected ${v}`);
    for (const [h, v] of haveSlots) if (!wantSlots.has(h)) diffs.push(`${address} slot with hash ${h} = ${v}, not in postState`);
  }
  for (const [hashed, { address }] of expected) if (!seen.has(hashed)) diffs.push(`account ${address} missing`);
  return diffs;
}

/** The one-line form of an import rejection; an error that is no BasaltError is a crash, not a rejection. */
function rejection(e: unknown): { text: string; typed: boolean } {
  if (e instanceof BasaltError) return { text: `${e.code}: ${e.message}`, typed: true };
  return { text: e instanceof Error ? `${e.name}: ${e.message}` : String(e), typed: false };
}

const oneLine = (s: string): string => s.replace(/\s+/g, " ").slice(0, 400);

/** Runs a case in a temporary datadir (removed afterwards) under `tmpRoot`. */
export async function runCase(c: BlockchainTestCase, tmpRoot = os.tmpdir()): Promise<CaseOutcome> {
  const datadir = mkdtempSync(path.join(tmpRoot, "basalt-eest-bc-"));
  const blocks: BlockOutcome[] = [];
  try {
    const { hash } = await Chain.init(datadir, c.genesis);
    if (to0x(hash) !== c.genesisHash) return { failure: `genesis hash ${to0x(hash)}, expected ${c.genesisHash}`, blocks };
    const chain = Chain.open(datadir);
    try {
      for (const [index, b] of c.blocks.entries()) {
        const before = to0x(chain.headHash);
        let rejected: { text: string; typed: boolean } | undefined;
        try {
          await chain.importBlock(decodeBlockFromRlp(chain, hexToBytes(b.rlp as `0x${string}`)));
        } catch (e) {
          rejected = rejection(e);
        }
        blocks.push({ index, expected: b.expectException, rejected: rejected?.text });
        const head = to0x(chain.headHash);
        if (b.expectException !== undefined) {
          if (rejected === undefined) return { failure: `block ${index} accepted, expected rejection (${b.expectException})`, blocks };
          if (!rejected.typed) return { failure: oneLine(`block ${index} crashed the import instead of a typed rejection (${b.expectException}): ${rejected.text}`), blocks };
          if (head !== before) return { failure: `block ${index} rejected but the head moved to ${head}`, blocks };
        } else {
          if (rejected !== undefined) return { failure: oneLine(`block ${index} rejected: ${rejected.text}`), blocks };
          const want = b.blockHeader?.hash.toLowerCase();
          if (head !== want) return { failure: `block ${index} imported but head is ${head}, expected ${want}`, blocks };
        }
      }
      const head = to0x(chain.headHash);
      if (head !== c.lastBlockHash) return { failure: `head ${head}, expected lastblockhash ${c.lastBlockHash}`, blocks };
      const diffs = stateDifferences(chain, c.postState);
      if (diffs.length > 0) return { failure: oneLine(`state differs from postState: ${diffs.slice(0, 3).join("; ")}${diffs.length > 3 ? ` (+${diffs.length - 3} more)` : ""}`), blocks };
      return { blocks };
    } finally {
      await chain.close();
    }
  } catch (e) {
    return { failure: oneLine(`case could not run: ${rejection(e).text}`), blocks };
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}
