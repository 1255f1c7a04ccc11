import { ConfigError } from "../errors.js";

// Loaded modules by package name: an import is tried once per process and shared.
const loaded = new Map<string, Promise<unknown>>();

/**
 * Imports an optional peer dependency on first use. When it is not installed the error names
 * the package and the command that installs it, instead of Node's bare "Cannot find package".
 * The package name is a parameter so tests can ask for one that does not exist.
 */
export function importOptional<T>(packageName: string, installCommand: string, purpose: string): Promise<T> {
  let pending = loaded.get(packageName);
  if (!pending) {
    pending = import(packageName).catch((error: unknown) => {
      loaded.delete(packageName);
      const code = (error as NodeJS.ErrnoException).code;
      const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
      const reason = missing ? "is not installed" : `could not be loaded (${(error as Error).message})`;
      throw new ConfigError(`${purpose} needs the optional package "${packageName}", which ${reason}: run \`${installCommand}\``, {
        cause: error,
      });
    });
    loaded.set(packageName, pending);
  }
  return pending as Promise<T>;
}

/** The install command of the Parquet libraries. */
export const PARQUET_INSTALL = "npm install hyparquet hyparquet-writer";
