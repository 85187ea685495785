/**
 * `--sequencer-http`: eth_sendRawTransaction on a node that does not sequence sends the raw
 * transaction to the sequencer first, as op-geth's `--rollup.sequencerhttp` does
 * (eth/api_backend.go `SendTx`): a sequencer JSON-RPC error goes back to the caller unchanged
 * (its code, message and data); on success the transaction is also kept in the local mempool,
 * for local RPC use, where a local rejection is only logged (op-geth logs and still succeeds).
 */
import type { Logger } from "pino";
import type { TxPool } from "../txpool/txpool.js";
import { fromHex } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { sequencerForwardSeconds, sequencerForwardTotal } from "./metrics.js";
import { UpstreamRpcError, createRpcClient, type JsonRpcClient } from "../util/rpcClient.js";

/**
 * Where eth_sendRawTransaction sends a transaction besides the local mempool: the sequencer
 * (`--sequencer-http`). `forward` resolves with the transaction hash the sequencer returned, or
 * rejects with the sequencer's JSON-RPC error (passed through to the caller unchanged).
 */
export interface TxForwarder {
  forward(rawTx: string): Promise<string>;
  /**
   * base_transactionStatus asked of the sequencer (base/base `TransactionStatusApiImpl` with a
   * sequencer URL): its answer as given.
   * @throws SequencerStatusError when it cannot be reached or answers an error.
   */
  transactionStatus(hash: string): Promise<unknown>;
}

/** Stable code of {@link SequencerStatusError}. */
const SequencerStatusErrorCode = { SEQUENCER_STATUS_FAILED: "SYNC_SEQUENCER_STATUS_FAILED" } as const;
/** A {@link SequencerStatusError}'s code with its metadata. */
type SequencerStatusErrorType = { code: typeof SequencerStatusErrorCode.SEQUENCER_STATUS_FAILED; sequencer: string };

/** base_transactionStatus could not be asked of the sequencer (-32603 on the wire, as Base's node answers). */
export class SequencerStatusError extends TypedError<SequencerStatusErrorType> {
  constructor(message: string, sequencer: string) {
    super({ code: SequencerStatusErrorCode.SEQUENCER_STATUS_FAILED, sequencer }, message);
  }
}

/** Stable code of {@link SequencerForwardError}. */
const SequencerForwardErrorCode = { SEQUENCER_FORWARD_FAILED: "SYNC_SEQUENCER_FORWARD_FAILED" } as const;
/** A {@link SequencerForwardError}'s code with its metadata. */
type SequencerForwardErrorType = { code: typeof SequencerForwardErrorCode.SEQUENCER_FORWARD_FAILED; sequencer: string };

/** The sequencer could not be reached, or did not answer with a transaction hash (-32000 on the wire). */
export class SequencerForwardError extends TypedError<SequencerForwardErrorType> {
  constructor(message: string, sequencer: string) {
    super({ code: SequencerForwardErrorCode.SEQUENCER_FORWARD_FAILED, sequencer }, message);
  }
}

/** Shape of a transaction hash in the sequencer's answer. */
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** Options of {@link SequencerForwarder}. */
interface SequencerForwarderOptions {
  /** The local mempool that also keeps forwarded transactions; omit to forward only. */
  pool?: TxPool;
  logger: Logger;
  /** Per-request timeout towards the sequencer (default: the RPC client's). */
  timeoutMs?: number;
}

/** Forwards eth_sendRawTransaction to the sequencer and keeps accepted transactions in the local pool. */
export class SequencerForwarder implements TxForwarder {
  private readonly client: JsonRpcClient;
  private readonly log: Logger;
  private readonly pool: TxPool | undefined;
  private warnedFailure = false;

  constructor(url: string, opts: SequencerForwarderOptions) {
    this.log = opts.logger.child({ subsystem: "sync" });
    this.client = createRpcClient(url, { timeoutMs: opts.timeoutMs, logger: this.log });
    this.pool = opts.pool;
  }

  /** The sequencer endpoint without credentials. */
  get endpoint(): string {
    return this.client.endpoint;
  }

  /**
   * Serves eth_sendRawTransaction with `--sequencer-http`: sends `rawTx` (0x hex) to the
   * sequencer; resolves with the hash it returned. Rejects with the sequencer's JSON-RPC error as
   * an {@link UpstreamRpcError} (passed to the caller unchanged), or a -32000 error naming the
   * transport fault when the sequencer cannot be reached.
   */
  async forward(rawTx: string): Promise<string> {
    const end = sequencerForwardSeconds.startTimer();
    let hash: unknown;
    try {
      hash = await this.client.call<unknown>("eth_sendRawTransaction", [rawTx]);
    } catch (e) {
      if (e instanceof UpstreamRpcError) {
        sequencerForwardTotal.inc({ result: "rejected" });
        this.log.debug({ err: e }, "sequencer rejected a forwarded transaction");
        throw e;
      }
      sequencerForwardTotal.inc({ result: "failed" });
      const msg = (e as Error).message;
      if (!this.warnedFailure) this.log.warn({ sequencer: this.endpoint, err: e }, "cannot forward transactions to the sequencer");
      else this.log.debug({ sequencer: this.endpoint, err: e }, "forwarding to the sequencer failed");
      this.warnedFailure = true;
      throw new SequencerForwardError(`failed to forward the transaction to the sequencer: ${msg}`, this.endpoint);
    } finally {
      end();
    }
    if (typeof hash !== "string" || !TX_HASH.test(hash)) {
      sequencerForwardTotal.inc({ result: "failed" });
      const got = JSON.stringify(hash)?.slice(0, 80);
      throw new SequencerForwardError(`the sequencer answered eth_sendRawTransaction with ${got}, a transaction hash expected`, this.endpoint);
    }
    sequencerForwardTotal.inc({ result: "ok" });
    if (this.warnedFailure) this.log.info({ sequencer: this.endpoint }, "forwarding to the sequencer works again");
    this.warnedFailure = false;
    await this.keepLocally(rawTx, hash);
    return hash.toLowerCase();
  }

  /** base_transactionStatus(hash) as the sequencer answers it. */
  async transactionStatus(hash: string): Promise<unknown> {
    try {
      return await this.client.call<unknown>("base_transactionStatus", [hash]);
    } catch (e) {
      this.log.debug({ sequencer: this.endpoint, err: e }, "base_transactionStatus: the sequencer did not answer");
      throw new SequencerStatusError(`failed to fetch transaction status: ${(e as Error).message}`, this.endpoint);
    }
  }

  /** Adds an accepted transaction to the local pool; a refusal (already known, nonce, …) is only logged. */
  private async keepLocally(rawTx: string, hash: string): Promise<void> {
    if (this.pool === undefined) return;
    try {
      await this.pool.addRaw(fromHex(rawTx));
    } catch (e) {
      this.log.debug({ tx: hash, err: e }, "sequencer took the transaction, the local pool did not");
    }
  }

  /** Releases the connection to the sequencer. */
  close(): void {
    this.client.close();
  }
}
