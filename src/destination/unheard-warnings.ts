// Where a warning goes that no run's listener hears: a destination called outside a run (the
// records `history`, coverage and staleness read), or a run without a listener. A library user
// gets a Node process warning of type InterloperWarning (caught with `process.on("warning")`);
// a program that prints its own output, the command line, routes them to itself, so that they
// read as its other lines do, not as Node's (a pid and a `--trace-warnings` hint).

/** The `type` of the process warning a warning nobody hears becomes. */
export const WARNING_TYPE = "InterloperWarning";

let route: ((message: string) => void) | null = null;

/** Reports a warning no listener heard: to the route taken by `routeUnheardWarnings`, else as a process warning. */
export function warnUnheard(message: string): void {
  if (route) route(message);
  else process.emitWarning(message, { type: WARNING_TYPE });
}

/** Sends the warnings nobody hears to `to` instead of process warnings; returns the function that puts the previous route back. */
export function routeUnheardWarnings(to: (message: string) => void): () => void {
  const before = route;
  route = to;
  return () => {
    route = before;
  };
}
