// React and its reconciler choose their build when they load, from NODE_ENV: unset, as in most
// shells, means the development build, slower to load and to render (checks meant for React's
// own developers), which a progress view pays on every frame. The terminal views load them in
// production mode. NODE_ENV is set only while they load, then removed: the user's assets run in
// this process and see the environment they were given.

/** Runs `load` (the dynamic imports of ink, react and the views) with React's production build chosen. */
export async function loadTerminalViews<T>(load: () => Promise<T>): Promise<T> {
  if (process.env["NODE_ENV"] !== undefined) return load();
  process.env["NODE_ENV"] = "production";
  try {
    return await load();
  } finally {
    delete process.env["NODE_ENV"];
  }
}
