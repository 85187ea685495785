/** EEST v5.4.0 state tests, shard cancun-and-older (the shards and the checks are in run.ts). */
import { describeShard } from "./run.js";

describeShard("cancun-and-older");
