/**
 * A reader that stops reading (`interloper plan | head`) closes the pipe under the command. The
 * rest of that stream's output is dropped and the command carries on to its own end and exit
 * code, instead of crashing on EPIPE: a materialize piped into `head` still finishes the
 * partitions it started, and nothing is left half done because a reader lost interest.
 */
export function dropOutputOnceClosed(stream: NodeJS.WriteStream): void {
  // Once per stream, however many commands a process runs (tests run many in one).
  if (guarded.has(stream)) return;
  guarded.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    stream.write = discardingWrite as typeof stream.write;
  });
}

const guarded = new WeakSet<NodeJS.WriteStream>();

/** A `write` that takes a chunk and drops it, still calling back (exits wait for that callback). */
function discardingWrite(_chunk: unknown, encodingOrDone?: unknown, done?: unknown): boolean {
  const callback = typeof encodingOrDone === "function" ? encodingOrDone : done;
  if (typeof callback === "function") queueMicrotask(() => (callback as () => void)());
  return true;
}
