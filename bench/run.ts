/**
 * `npm run bench`: runs every benchmark of the bench folder in sequence, each in its own
 * process so one cannot warm caches for another — the micro-benchmarks, import, latency, the
 * serving path of cached block answers against a bare uWS handler (wrk), the devnet,
 * flashblocks and historical-proofs benches, and last the basalt-vs-anvil scenario (about 10 minutes).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
for (const b of ["micro.js", "importChain.js", "importThroughput.js", "senderRecovery.js", "rpcLatency.js", "servingPath.js", "opDevnet.js", "flashblocks.js", "proofs.js", "scenario.js"]) {
  const r = spawnSync(process.execPath, [join(here, b)], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
