/**
 * `optimism_syncStatus` (base/base `crates/consensus/rpc/src/jsonrpsee.rs` `SyncStatusApi`; type
 * `crates/consensus/protocol/src/sync.rs`; op-node `op-service/eth/sync_status.go`): snake_case
 * keys in op-node's order, block references as in {@link ./blockRefs.ts}.
 *
 * Where each field comes from in basalt (there is no L1 client yet):
 * - `unsafe_l2`, `cross_unsafe_l2`: the chain head (no interop: cross-unsafe = unsafe);
 * - `safe_l2`, `local_safe_l2`, `pending_safe_l2`: the `safe` pointer (`Chain.pointer("safe")`:
 *   set by the Engine API's forkchoice, by follow mode from the source, by the devnet sequencer);
 * - `finalized_l2`: the `finalized` pointer;
 * - every L2 ref's `l1origin` and `sequenceNumber`: the block's L1-attributes deposit;
 * - `head_l1`, `current_l1`: on the sequencing devnet, the simulated L1 block that is the origin
 *   of `unsafe_l2` (hash/number/timestamp from its deposit, parent = simulated block n−1); on a
 *   sequencer with a real L1 (`--sequencer --l1.rpc`) without derivation's status, the origin of
 *   `unsafe_l2` as read from that L1; zeroed otherwise (follow mode and real networks, as Base's follow mode);
 * - `current_l1_finalized`, `safe_l1`, `finalized_l1`: zeroed without derivation.
 * With L1 derivation (`--l1.rpc`; src/derivation/service.ts) the L1 fields are derivation's:
 * `current_l1` the L1 block the pipeline is at, `head_l1` the newest L1 block seen, `safe_l1` the
 * L1 block the safe head was derived from, `finalized_l1` and `current_l1_finalized` the
 * finalized L1 block last read; `safe_l2`, `local_safe_l2`, `pending_safe_l2` and `finalized_l2`
 * are the pointers derivation moves.
 * A missing block (no `safe` pointer yet) is a zeroed ref, never null (base/base#3678).
 */
import type { Block } from "@ethereumjs/block";
import type { Chain } from "../blockchain/chain.js";
import { devL1BlockHash } from "../sequencer/opDevSequencer.js";
import { to0x } from "../util/bytes.js";
import { l1OriginOf, l2RefOf, zeroL1Ref, zeroL2Ref, ZERO_HASH, type BlockIdJson, type L1BlockRefJson, type L2BlockRefJson } from "./blockRefs.js";

/** The `optimism_syncStatus` result (op-node `SyncStatus` plus Base's field set). */
export interface SyncStatusJson {
  current_l1: L1BlockRefJson;
  current_l1_finalized: L1BlockRefJson;
  head_l1: L1BlockRefJson;
  safe_l1: L1BlockRefJson;
  finalized_l1: L1BlockRefJson;
  unsafe_l2: L2BlockRefJson;
  safe_l2: L2BlockRefJson;
  finalized_l2: L2BlockRefJson;
  pending_safe_l2: L2BlockRefJson;
  cross_unsafe_l2: L2BlockRefJson;
  local_safe_l2: L2BlockRefJson;
}

/** What the sync status is computed from. */
interface SyncStatusSource {
  chain: Chain;
  /** The rollup genesis's L1 anchor (the L1 origin reported for the L2 genesis block), if known. */
  genesisL1?: BlockIdJson;
  /** True on the sequencing devnet: its simulated L1 fills `head_l1`/`current_l1`. */
  simulatedL1: boolean;
  /** A sequencer with a real L1: the head's origin as read from it (undefined until read); fills `head_l1`/`current_l1`. */
  l1Origin?: () => L1BlockRefJson | undefined;
  /** L1 derivation's status, when it runs. */
  derivation?: () => DerivationL1Status;
}

/** The L1 blocks derivation reports (src/derivation/service.ts `DerivationStatus`). */
export interface DerivationL1Status {
  currentL1?: L1Ref;
  headL1?: L1Ref;
  safeL1?: L1Ref;
  finalizedL1?: L1Ref;
}

/** An L1 block reference as derivation keeps it. */
interface L1Ref {
  number: bigint;
  hash: Uint8Array;
  parentHash: Uint8Array;
  timestamp: bigint;
}

function l1Json(r: L1Ref | undefined): L1BlockRefJson {
  return r === undefined ? zeroL1Ref() : { hash: to0x(r.hash), number: Number(r.number), parentHash: to0x(r.parentHash), timestamp: Number(r.timestamp) };
}

/**
 * The simulated L1 block that is the origin of `head` on the devnet: hash, number and timestamp
 * from the head's L1-attributes deposit, parent = simulated block n−1 (`devL1BlockHash`). The
 * genesis (no deposit) maps to simulated L1 block 0 at the genesis time, as the devnet sequencer.
 */
function simulatedL1RefOf(head: Block): L1BlockRefJson {
  const origin = l1OriginOf(head);
  const number = origin?.number ?? 0n;
  return {
    hash: to0x(origin?.hash ?? devL1BlockHash(0n)),
    number: Number(number),
    parentHash: number > 0n ? to0x(devL1BlockHash(number - 1n)) : ZERO_HASH,
    timestamp: Number(origin?.timestamp ?? head.header.timestamp),
  };
}

/** Computes `optimism_syncStatus` from the chain's head and pointers (see the file comment for each field's source). */
export function syncStatusOf(src: SyncStatusSource): SyncStatusJson {
  const { chain } = src;
  const ref = (b: Block | undefined): L2BlockRefJson => (b === undefined ? zeroL2Ref() : l2RefOf(b, src.genesisL1));
  const head = chain.head;
  const unsafe = ref(head);
  const safe = ref(chain.pointer("safe"));
  const finalized = ref(chain.pointer("finalized"));
  const d = src.derivation?.();
  // Derivation's L1 head once it has read one; before that (and without derivation) the sequencer's origin or the simulated L1.
  const headL1 = d?.headL1 !== undefined ? l1Json(d.headL1) : src.simulatedL1 ? simulatedL1RefOf(head) : (src.l1Origin?.() ?? zeroL1Ref());
  return {
    current_l1: d?.currentL1 !== undefined ? l1Json(d.currentL1) : { ...headL1 },
    current_l1_finalized: l1Json(d?.finalizedL1),
    head_l1: headL1,
    safe_l1: l1Json(d?.safeL1),
    finalized_l1: l1Json(d?.finalizedL1),
    unsafe_l2: unsafe,
    safe_l2: safe,
    finalized_l2: finalized,
    pending_safe_l2: { ...safe, l1origin: { ...safe.l1origin } },
    cross_unsafe_l2: { ...unsafe, l1origin: { ...unsafe.l1origin } },
    local_safe_l2: { ...safe, l1origin: { ...safe.l1origin } },
  };
}
