/** A hook's result that may come at once or later: a user's hook may be sync or async. */
export type MaybePromise<T> = T | Promise<T>;
