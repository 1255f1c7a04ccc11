/** An object's own properties except those set to undefined: what "not set" means to a reader of options. */
export type WithoutUndefined<T extends object> = { [K in keyof T]?: Exclude<T[K], undefined> };

/** A copy of `value` without its properties set to undefined, which would otherwise override defaults when spread. */
export function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as WithoutUndefined<T>;
}
