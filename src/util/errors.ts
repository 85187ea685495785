/**
 * Base class of every error basalt raises on purpose.
 *
 * Each error carries a stable string `code` (never reworded once released) and a typed
 * metadata object, so it can be logged structurally and sent across worker threads
 * (`toObject()` / `fromObject()` give a plain, structured-cloneable form). Mapping to
 * JSON-RPC codes happens at one boundary only: `src/rpc/errors.ts`.
 */
export class BasaltError<M extends Record<string, unknown> = Record<string, unknown>> extends Error {
  readonly code: string;
  readonly meta: M;

  constructor(code: string, message: string, meta: M = {} as M, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.meta = meta;
  }

  /** A structured-cloneable form (for postMessage and logs). */
  toObject(): { name: string; code: string; message: string; meta: M } {
    return { name: this.name, code: this.code, message: this.message, meta: this.meta };
  }

  static fromObject(o: { code: string; message: string; meta?: Record<string, unknown> }): BasaltError {
    return new BasaltError(o.code, o.message, o.meta ?? {});
  }
}
