// The house limits (docs/architecture.md): no file of src over 300 lines, no function over 80
// lines (function declarations, methods, constructors, accessors, arrow functions and function
// expressions, each measured whole, nested functions included). Functions are found with
// TypeScript's own parser, so that a brace in a string or a regular expression cannot mislead
// the count.
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files.js";

const SRC = resolve(import.meta.dirname, "../../src");
const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 80;

interface Violation {
  readonly file: string;
  readonly function?: string;
  readonly lines: number;
}

/** Lines of a text as an editor numbers them (a final newline ends the last line, it starts none). */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.FunctionExpression,
]);

/**
 * A function's name in a failure: its own, or that of the variable or property it is
 * assigned to, or the call it is an argument of (`command("list").action(...)` gives
 * `action callback`), prefixed by its class for a member.
 */
function functionName(node: ts.Node, file: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  const own = named.name?.getText(file);
  const owner = ts.isClassLike(node.parent) ? `${node.parent.name?.getText(file) ?? "(class)"}.` : "";
  if (ts.isConstructorDeclaration(node)) return `${owner}constructor`;
  if (own) return `${owner}${own}`;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(file);
  }
  if (ts.isCallExpression(parent)) {
    const callee = parent.expression;
    const called = ts.isPropertyAccessExpression(callee) ? callee.name.getText(file) : callee.getText(file);
    return `${called} callback`;
  }
  return `(anonymous, line ${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1})`;
}

/** Every file and function of src over its limit, with its size. */
function violations(): Violation[] {
  const found: Violation[] = [];
  for (const path of sourceFiles(SRC)) {
    const file = relative(SRC, path);
    const text = readFileSync(path, "utf8");
    const lines = lineCount(text);
    if (lines > MAX_FILE_LINES) found.push({ file, lines });
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (FUNCTION_KINDS.has(node.kind) && (node as ts.FunctionLikeDeclaration).body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (end - start + 1 > MAX_FUNCTION_LINES) found.push({ file, function: functionName(node, source), lines: end - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe("sizes of src", () => {
  it(`no file over ${MAX_FILE_LINES} lines and no function over ${MAX_FUNCTION_LINES}`, () => {
    expect(violations()).toEqual([]);
  });
});
