/**
 * Starting the consensus-side RPC server (`--rollup`, `--rollup.addr`, `--rollup.port`): a
 * JSON-RPC HTTP server (the same {@link RpcHttpServer} as the public port, transport label
 * "rollup") serving {@link rollupMethods}, plus `GET /health` ({@link healthAnswer}). Only OP
 * Stack chains get one.
 */
import type { Logger } from "pino";
import type { Chain } from "../blockchain/chain.js";
import { RpcHttpServer } from "../rpc/server.js";
import { healthAnswer } from "./health.js";
import { rollupMethods, type RollupMethodsOptions } from "./methods.js";
import type { MethodTable } from "../rpc/types.js";

/** Options of {@link startRollupServer}. */
interface RollupServerOptions extends RollupMethodsOptions {
  chain: Chain;
  /** Listen address (`--rollup.addr`). */
  host: string;
  /** Listen port (`--rollup.port`; 0 = any free port). */
  port: number;
  logger: Logger;
  /** More methods on the same port: op-node's `opp2p_*` admin API when P2P runs (left out with `--public`). */
  extraMethods?: MethodTable;
}

/** A listening rollup server. */
export interface RollupServer {
  /** The bound port. */
  port: number;
  /** Stops accepting connections and drops open ones. */
  close(): void;
}

/**
 * Starts the rollup RPC server and resolves once it listens; resolves undefined (logged at debug)
 * on a chain that is not an OP Stack chain.
 * @throws RpcServerError RPC_LISTEN_FAILED when the address is taken.
 */
export async function startRollupServer(o: RollupServerOptions): Promise<RollupServer | undefined> {
  const log = o.logger.child({ subsystem: "rollup" });
  if (o.chain.op === undefined) {
    log.debug({ chainId: o.chain.chainId.toString() }, "rollup RPC not started: not an OP Stack chain");
    return undefined;
  }
  const server = new RpcHttpServer({
    host: o.host,
    port: o.port,
    methods: { ...rollupMethods(o), ...(o.extraMethods ?? {}) },
    transport: "rollup",
    logger: log,
    // GET /health?max_lag=N: the sync check as an HTTP status for load balancers.
    get: (path, query) => healthAnswer(o.chain, path, query),
  });
  const port = await server.listen();
  return { port, close: () => server.close() };
}
