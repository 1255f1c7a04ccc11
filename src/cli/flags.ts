import type { OptionNamer } from "../errors.js";

// The API's options by the flags that set them, where the flag is not the option's name in
// kebab case: a message of the API names the option, the command line says the flag.
const FLAGS: Readonly<Record<string, string>> = {
  only: "--missing",
  timeoutMs: "--timeout",
  graceMs: "--grace",
};

/** The flag that sets an API option: `window` is `--window`, `fullRefresh` is `--full-refresh`. */
export const flagOf: OptionNamer = (option) => FLAGS[option] ?? `--${option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
