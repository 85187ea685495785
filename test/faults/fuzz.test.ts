/**
 * The long JSON-RPC fuzzing run (npm run test:faults): 50,000 random and mutated requests against
 * a devnet node. Replay a failure with BASALT_FUZZ_SEED.
 */
import { fuzzSuite } from "./fuzzSuite.js";

/** Requests per long run. */
const FUZZ_REQUESTS = 50_000;

fuzzSuite(FUZZ_REQUESTS);
