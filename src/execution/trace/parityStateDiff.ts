/**
 * Parity's `stateDiff` of one transaction (reth `trace_replayTransaction` with "stateDiff"),
 * built from the prestate tracer's diff (`{pre, post}`, only what changed): per changed
 * account its `balance`, `nonce`, `code` and changed `storage` slots, each a delta — `"="`
 * unchanged, `{"*": {from, to}}` changed, `{"+": value}` for an account the transaction
 * created, `{"-": value}` for one it destroyed. Nonces are hex quantities, slots 32-byte words.
 */

/** A geth prestate account (prestateTracer JSON). */
interface PrestateAccount {
  balance?: string;
  nonce?: number;
  code?: string;
  storage?: Record<string, string>;
}

/** A geth prestate diff (prestateTracer with `diffMode`). */
export interface PrestateDiff {
  pre: Record<string, PrestateAccount>;
  post: Record<string, PrestateAccount>;
}

const ZERO_WORD = "0x" + "00".repeat(32);

const nonceHex = (n: number | undefined): string => "0x" + (n ?? 0).toString(16);

type Delta = "=" | { "+": string } | { "-": string } | { "*": { from: string; to: string } };

function changed(from: string, to: string | undefined): Delta {
  return to === undefined || to === from ? "=" : { "*": { from, to } };
}

function whole(sign: "+" | "-", a: PrestateAccount): Record<string, unknown> {
  const storage: Record<string, Delta> = {};
  for (const [k, v] of Object.entries(a.storage ?? {})) storage[k] = (sign === "+" ? { "+": v } : { "-": v }) as Delta;
  const d = (v: string): Delta => (sign === "+" ? { "+": v } : { "-": v });
  return { balance: d(a.balance ?? "0x0"), code: d(a.code ?? "0x"), nonce: d(nonceHex(a.nonce)), storage };
}

/** Parity's state diff of a prestate diff (accounts in address order as reth's map serialises them). */
export function parityStateDiff(diff: PrestateDiff): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const addresses = [...new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)])].sort();
  for (const a of addresses) {
    const pre = diff.pre[a];
    const post = diff.post[a];
    if (pre === undefined) out[a] = whole("+", post!);
    else if (post === undefined) out[a] = whole("-", pre);
    else {
      const storage: Record<string, Delta> = {};
      const slots = [...new Set([...Object.keys(pre.storage ?? {}), ...Object.keys(post.storage ?? {})])].sort();
      // The diff drops zero slots: a slot absent on one side was zero there.
      for (const s of slots) storage[s] = changed(pre.storage?.[s] ?? ZERO_WORD, post.storage?.[s] ?? ZERO_WORD);
      out[a] = {
        balance: changed(pre.balance ?? "0x0", post.balance),
        code: changed(pre.code ?? "0x", post.code),
        nonce: changed(nonceHex(pre.nonce), post.nonce === undefined ? undefined : nonceHex(post.nonce)),
        storage,
      };
    }
  }
  return out;
}
