// A terminal may report a size of 0 (a serial console, some containers and multiplexers): ink
// would then lay its output out 0 columns wide, one character a line, and take every frame for a
// full screen to clear. 0 means "unknown" there, so it reads as the usual 80 x 24.

/** Columns and rows assumed when the terminal reports none. */
export const UNKNOWN_SIZE = { columns: 80, rows: 24 } as const;

/**
 * Makes `stream`'s `columns` and `rows` read as UNKNOWN_SIZE while the terminal reports 0 (or
 * nothing); a size it reports later (on a resize) shows through. Returns the stream.
 */
export function withKnownSize<S extends NodeJS.WriteStream>(stream: S): S {
  for (const side of ["columns", "rows"] as const) {
    const descriptor = Object.getOwnPropertyDescriptor(stream, side);
    // Already wrapped, or not a plain value to wrap: leave it.
    if (descriptor && !("value" in descriptor)) continue;
    let reported = stream[side] as number | undefined;
    Object.defineProperty(stream, side, {
      configurable: true,
      enumerable: true,
      get: () => (reported && reported > 0 ? reported : UNKNOWN_SIZE[side]),
      // Node sets the size again on each resize.
      set: (value: number | undefined) => {
        reported = value;
      },
    });
  }
  return stream;
}
