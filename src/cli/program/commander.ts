import { createRequire } from "node:module";

// Loaded as CommonJS, which commander is: through its ES module wrapper Node would first scan
// its source for export names, a cost every command pays at start-up.
const commander = createRequire(import.meta.url)("commander") as typeof import("commander");

export const { Command, CommanderError, InvalidArgumentError, Option } = commander;
