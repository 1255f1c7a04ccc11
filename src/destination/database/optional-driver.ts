import { ConfigError } from "../../errors.js";

// One import per package per process, shared by every destination instance.
const loaded = new Map<string, Promise<unknown>>();

/**
 * Imports a database driver, an optional peer dependency, on first use. A missing one is a
 * ConfigError naming the package and the install command; the package name is a parameter so
 * a test can ask for one that does not exist. CommonJS drivers come back as their exports.
 */
export function loadDriver<T>(packageName: string, purpose: string, installCommand = `npm install ${packageName}`): Promise<T> {
  let pending = loaded.get(packageName);
  if (!pending) {
    pending = import(packageName).then(
      (module: { default?: unknown }) => module.default ?? module,
      (error: unknown) => {
        loaded.delete(packageName);
        const code = (error as NodeJS.ErrnoException).code;
        const missing = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
        const reason = missing ? "is not installed" : `could not be loaded (${(error as Error).message})`;
        throw new ConfigError(`${purpose} needs the optional package "${packageName}", which ${reason}: run \`${installCommand}\``, { cause: error });
      },
    );
    loaded.set(packageName, pending);
  }
  return pending as Promise<T>;
}
