/** EEST v5.4.0 state tests, shard osaka-2 (the shards and the checks are in run.ts). */
import { describeShard } from "./run.js";

describeShard("osaka-2");
