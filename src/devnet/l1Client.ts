/**
 * How the devnet's L1 tooling reaches an L1: every function takes its JSON-RPC URL (a client is
 * opened for the call and closed after it) or a client the caller keeps open (several calls, one
 * connection, or a WebSocket).
 */
import { createRpcClient, type JsonRpcClient } from "../util/rpcClient.js";

/** An L1 to talk to: its JSON-RPC URL, or an open client. */
export type L1Target = string | JsonRpcClient;

/** Runs `fn` with a client for `target`: the given client, or one opened for a URL and closed afterwards. */
export async function withL1Client<T>(target: L1Target, fn: (rpc: JsonRpcClient) => Promise<T>): Promise<T> {
  if (typeof target !== "string") return fn(target);
  const rpc = createRpcClient(target);
  try {
    return await fn(rpc);
  } finally {
    rpc.close();
  }
}
