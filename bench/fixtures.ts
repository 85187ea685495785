import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Path of a file under the shared fixtures (../shared/fixtures beside the repository). */
export function sharedFixture(rel: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, "..", "shared", "fixtures", rel);
    if (existsSync(candidate)) return resolve(candidate);
    dir = join(dir, "..");
  }
  throw new Error(`shared fixture ${rel} not found beside the repository (expected ../shared/fixtures)`);
}
