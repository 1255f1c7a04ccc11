import type { Command, Option } from "commander";
import { ConfigError } from "../../errors.js";
import type { GlobalOptions } from "../main.js";
import { openCommandSession } from "../command-session.js";

const SHELLS = ["bash", "zsh", "fish"] as const;

/** The commands whose positional arguments are asset selectors. */
const TAKES_ASSETS = ["materialize", "plan", "list", "coverage", "show", "verify"];

/** `interloper completion <shell>`: prints the script; returns the exit code. */
export function completionCommand(shell: string, program: Command): number {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new ConfigError(`completion: unknown shell "${shell}": expected ${SHELLS.join(", ")}`);
  const script =
    shell === "fish"
      ? fishScript(program)
      : shell === "zsh"
        ? `#compdef interloper\nautoload -U +X bashcompinit && bashcompinit\n${bashScript(program)}`
        : bashScript(program);
  process.stdout.write(script);
  return 0;
}

/**
 * `interloper __complete [word]`: what an asset selector may be, one a line (qualified keys,
 * keys, sources, `tag:NAME`), from the config. Completion must never print an error into the
 * user's command line: a config that does not load gives nothing.
 */
export async function completeAssets(word: string, flags: GlobalOptions): Promise<number> {
  try {
    const { project } = await openCommandSession(flags);
    const assets = project.dag.assets;
    const words = new Set<string>();
    for (const asset of assets) {
      words.add(asset.qualifiedKey);
      if (assets.filter((a) => a.key === asset.key).length === 1) words.add(asset.key);
      if (asset.source) words.add(asset.source.key);
      for (const tag of asset.tags) words.add(`tag:${tag}`);
    }
    const matching = [...words].filter((w) => w.startsWith(word.replace(/^\+/, "")));
    if (matching.length) process.stdout.write(`${matching.join("\n")}\n`);
  } catch {
    // Nothing to offer.
  }
  return 0;
}

interface Shape {
  readonly name: string;
  readonly flags: readonly string[];
  /** The flags that take a value. */
  readonly valued: readonly string[];
  readonly options: readonly Option[];
}

function shapeOf(command: Command): Shape {
  const options = command.options.filter((o) => !o.hidden);
  const flags = options.flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
  const valued = options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f): f is string => Boolean(f)));
  return { name: command.name(), flags: [...flags, "--help"], valued, options };
}

function visible(program: Command): Command[] {
  return program.commands.filter((c) => !c.name().startsWith("_"));
}

function bashScript(program: Command): string {
  const global = shapeOf(program);
  const commands = visible(program).map(shapeOf);
  const valued = [...new Set([...global.valued, ...commands.flatMap((c) => c.valued)])].filter(
    (f) => f !== "-c" && f !== "--config" && f !== "--exclude",
  );
  const flagCases = commands
    .map((c) => `      ${c.name}) COMPREPLY=($(compgen -W "${[...c.flags, ...global.flags].join(" ")}" -- "$cur")) ;;`)
    .join("\n");
  return `# interloper completion for bash: add to ~/.bashrc
#   source <(interloper completion bash)
# Asset keys and sources are read from the config (-c on the line, else the one found from here).
_interloper() {
  local cur prev cmd i
  local -a config=()
  COMPREPLY=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -c|--config) config=(-c "\${COMP_WORDS[i+1]}"); ((i++)) ;;
      ${valued.join("|")}) ((i++)) ;;
      -*) ;;
      *) [[ -z "$cmd" ]] && cmd="\${COMP_WORDS[i]}" ;;
    esac
  done
  case "$prev" in
    -c|--config) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --exclude) COMPREPLY=($(compgen -W "$(interloper __complete "\${config[@]}" -- "$cur" 2>/dev/null | grep -v :)" -- "$cur")); return ;;
    ${valued.join("|")}) return ;;
  esac
  if [[ -z "$cmd" ]]; then
    if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "${global.flags.join(" ")}" -- "$cur"))
    else COMPREPLY=($(compgen -W "${commands.map((c) => c.name).join(" ")}" -- "$cur")); fi
    return
  fi
  if [[ "$cur" == -* ]]; then
    case "$cmd" in
${flagCases}
    esac
    return
  fi
  case "$cmd" in
    ${TAKES_ASSETS.join("|")}) COMPREPLY=($(compgen -W "$(interloper __complete "\${config[@]}" -- "$cur" 2>/dev/null | grep -v :)" -- "$cur")) ;;
    completion) COMPREPLY=($(compgen -W "${SHELLS.join(" ")}" -- "$cur")) ;;
  esac
}
complete -F _interloper interloper
`;
}

function fishScript(program: Command): string {
  const global = shapeOf(program);
  const commands = visible(program).map(shapeOf);
  const quote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const option = (o: Option, condition: string) =>
    `complete -c interloper ${condition}${o.long ? ` -l ${o.long.replace(/^--/, "")}` : ""}${o.short ? ` -s ${o.short.replace(/^-/, "")}` : ""}${o.required || o.optional ? " -r" : ""} -d ${quote(o.description.split(/[;(]/)[0]!.trim())}`;
  const lines = [
    "# interloper completion for fish: interloper completion fish > ~/.config/fish/completions/interloper.fish",
    "function __interloper_assets",
    "    set -l words (commandline -opc)",
    "    set -l i (contains -i -- -c $words; or contains -i -- --config $words)",
    "    if set -q i[1]",
    "        interloper __complete -c $words[(math $i + 1)] 2>/dev/null",
    "    else",
    "        interloper __complete 2>/dev/null",
    "    end",
    "end",
    "complete -c interloper -f",
    ...global.options.map((o) => option(o, "")),
    ...commands.map(
      (c) =>
        `complete -c interloper -n __fish_use_subcommand -a ${c.name} -d ${quote(
          visible(program)
            .find((v) => v.name() === c.name)!
            .description()
            .split(/[:;(]/)[0]!
            .trim(),
        )}`,
    ),
    ...commands.flatMap((c) => c.options.map((o) => option(o, `-n '__fish_seen_subcommand_from ${c.name}'`))),
    `complete -c interloper -n '__fish_seen_subcommand_from ${TAKES_ASSETS.join(" ")}' -a '(__interloper_assets)'`,
    `complete -c interloper -n '__fish_seen_subcommand_from completion' -a '${SHELLS.join(" ")}'`,
  ];
  return `${lines.join("\n")}\n`;
}
