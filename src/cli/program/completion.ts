import type { Command } from "commander";
import { flagsOf } from "./options.js";

/** Declares `interloper completion` and the hidden `__complete` its scripts call for asset keys. */
export function declareCompletion(program: Command): void {
  program
    .command("completion")
    .argument("<shell>", "bash, zsh or fish")
    .description("print a shell completion script: commands, options, and asset keys read from the config when you press Tab")
    .addHelpText(
      "after",
      `\nExamples:\n  $ source <(interloper completion bash)              # in ~/.bashrc\n  $ interloper completion zsh > "\${fpath[1]}/_interloper"\n  $ interloper completion fish > ~/.config/fish/completions/interloper.fish`,
    )
    .action(async (shell: string) => {
      const { completionCommand } = await import("../commands/completion.js");
      process.exitCode = completionCommand(shell, program);
    });

  program
    .command("__complete", { hidden: true })
    .argument("[word]", "the word being completed")
    .description("print the asset keys, sources and tags for shell completion, one a line")
    .action(async (word: string | undefined, options: object, command: Command) => {
      const { completeAssets } = await import("../commands/completion.js");
      process.exitCode = await completeAssets(word ?? "", flagsOf(options, command));
    });
}
