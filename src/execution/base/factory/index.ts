/**
 * Base's B20Factory precompile (`0xB20f…0000`, from Beryl): creates B-20 tokens (see
 * {@link ./factory.ts}).
 *
 * - {@link b20FactoryHandler}: the handler the engine installs at `B20_FACTORY_ADDRESS`, created
 *   tokens reading policies from the PolicyRegistry's storage.
 * - {@link createB20FactoryHandler}: the same over another policy access (tests).
 */
import { registryPolicyPort } from "../b20/index.js";
import { createB20FactoryHandler } from "./factory.js";


/** The B20Factory precompile handler (V1 from Beryl; version and token version by `ctx.fork`). */
export const b20FactoryHandler = createB20FactoryHandler({ policy: registryPolicyPort });
