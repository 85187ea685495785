/**
 * JSON renderers: hex encodings and the JSON forms of blocks, transactions, receipts and logs
 * exactly as geth answers them (execution-apis fixtures) — or, on OP Stack chains
 * (`RpcFormatOptions.op`), transactions and receipts as op-reth (base-reth-node) does. A codec
 * like the RLP ones: the RPC methods answer with it and the flashblocks worker renders pending
 * blocks with it.
 */
export * from "./quantity.js";
export * from "./transaction.js";
export * from "./block.js";
export * from "./receipt.js";
