/** EEST v5.4.0 blockchain tests, shard prague-1 (the shards and the checks are in run.ts). */
import { describeShard } from "./run.js";

describeShard("prague-1");
