/** EEST v5.4.0 blockchain tests, shard cancun-1 (the shards and the checks are in run.ts). */
import { describeShard } from "./run.js";

describeShard("cancun-1");
