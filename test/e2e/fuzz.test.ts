/**
 * JSON-RPC fuzzing against a running devnet node over HTTP: 3,000 random and mutated requests
 * (the 50,000-request run is test/faults/fuzz.test.ts). Replay a failure with BASALT_FUZZ_SEED.
 */
import { fuzzSuite } from "../faults/fuzzSuite.js";

/** Requests per `npm test` run: a few seconds of load, enough to cover every case kind many times. */
const FUZZ_REQUESTS = 3_000;

fuzzSuite(FUZZ_REQUESTS);
