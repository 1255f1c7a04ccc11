import { importOptional } from "../optional-import.js";

/**
 * Imports a database driver, an optional peer dependency, on first use (see importOptional);
 * CommonJS drivers come back as their exports.
 */
export async function loadDriver<T>(packageName: string, purpose: string, installCommand = `npm install ${packageName}`): Promise<T> {
  const module = await importOptional<{ default?: unknown }>(packageName, installCommand, purpose);
  return (module.default ?? module) as T;
}
