import { InterloperError } from "../../errors.js";

/** A storage call of an object-store backend failed (the bucket, key and operation are named). */
export class ObjectStoreError extends InterloperError {
  override readonly code: string = "OBJECT_STORE_ERROR";
}
