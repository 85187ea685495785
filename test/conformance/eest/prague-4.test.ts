/** EEST v5.4.0 state tests, shard prague-4 (the shards and the checks are in run.ts). */
import { describeShard } from "./run.js";

describeShard("prague-4");
