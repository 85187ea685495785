/**
 * Base class of every error basalt raises on purpose.
 *
 * Each error carries a stable string `code` (never reworded once released) and a typed
 * metadata object, so it can be logged structurally and sent across worker threads
 * (`toObject()` / `fromObject()` give a plain, structured-cloneable form). Mapping to
 * JSON-RPC codes happens at one boundary only: `src/rpc/errors.ts`.
 *
 * The constructor is protected: code throws a subsystem's {@link TypedError} (typed codes and
 * metadata), never a bare `new BasaltError(code, …)` with a free-form code. Only
 * {@link BasaltError.fromObject} (an error rebuilt from another thread, `util/errorRegistry.ts`)
 * makes a plain one.
 */
export class BasaltError<M extends Record<string, unknown> = Record<string, unknown>> extends Error {
  readonly code: string;
  readonly meta: M;

  protected constructor(code: string, message: string, meta: M = {} as M, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.meta = meta;
  }

  /** A structured-cloneable form (for postMessage and logs). */
  toObject(): { name: string; code: string; message: string; meta: M } {
    return { name: this.name, code: this.code, message: this.message, meta: this.meta };
  }

  /** Rebuilds an error from its {@link toObject} form (as a plain BasaltError: subclasses rebuild their own). */
  static fromObject(o: BasaltErrorObject): BasaltError {
    return new BasaltError(o.code, o.message, o.meta ?? {});
  }
}

/** What {@link BasaltError.fromObject} needs of an error's plain form. */
interface BasaltErrorObject {
  code: string;
  message: string;
  meta?: Record<string, unknown>;
}

/**
 * A {@link BasaltError} whose metadata depends on its code (lodestar's `LodestarError<T>`): `T`
 * is a union of `{ code, …metadata }` objects, one per code, and {@link type} narrows on `code`.
 * `meta` holds the same metadata without the code.
 */
export class TypedError<T extends { code: string }> extends BasaltError {
  declare readonly code: T["code"];
  /** The code and its metadata, narrowed together. */
  readonly type: T;

  constructor(type: T, message: string, options?: { cause?: unknown }) {
    const { code, ...meta } = type;
    super(code, message, meta, options);
    this.type = type;
  }

  /** Rebuilds an error of the class it is called on from its `toObject()` form (sent across a thread boundary). */
  static override fromObject<E extends BasaltError>(this: new (type: never, message: string) => E, o: BasaltErrorObject): E {
    return new this({ ...o.meta, code: o.code } as never, o.message);
  }
}

/** Any thrown value in the plain form that crosses a thread boundary; `code` only for a {@link BasaltError}. */
export interface ErrorObject {
  name: string;
  code?: string;
  message: string;
  meta?: Record<string, unknown>;
}

/** The {@link ErrorObject} of any thrown value (a {@link BasaltError}'s `toObject()`). */
export function errorToObject(e: unknown): ErrorObject {
  if (e instanceof BasaltError) return e.toObject();
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: "Error", message: String(e) };
}
