// The names the package root ("interloper", src/index.ts) exports, pinned: adding a name to the
// root or taking one away changes what users may import (the definitions they write, the errors
// they catch, the runtime their scripts call), so it is made here on purpose rather than by an
// `export` that happens to reach the barrel. Internals stay importable from their own modules.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const words = (text: string) => text.trim().split(/\s+/);

/** What the root exports at run time: classes, functions and constants. */
const VALUES = words(`
    Asset AssetError BackfillResult CSVDestination CSVFormat CheckError CircularDependencyError
    ConfigError DAG DAGError DataNotFoundError DatabaseDestination DatabaseError DependencyNotFoundError
    Destination DestinationWriteError ExecutionContext FileDestination GCSDestination HISTORY_KEPT
    IOContext InterloperError JSONLFormat ListPartition ListPartitionConfig ListPartitionWindow
    LocalObjectStoreDestination MemoryDestination MultiPartition MultiPartitionConfig
    MultiPartitionWindow MySQLDestination ObjectStoreDestination ObjectStoreError ParquetFormat
    Partition PartitionConfig PartitionError PartitionWindow PostgresDestination RunEvents RunResult
    S3Destination SQLiteDestination SchemaError Source TableData TimeGranularity TimePartition
    TimePartitionConfig TimePartitionWindow TimeWindowMapping UnreadableDataError Upstream asset
    assetCoverage backfill check checks coverage date declareOptions defineConfig destination fieldSpecs
    inferFieldSpecs loadProject materialize materializePlan openProject planMaterialize previousPeriod
    registerRepresentation source subscribe trailing
`);

/** What it exports for TypeScript alone: the types of options, results and definitions. */
const TYPES = words(`
    AssetDefinition AssetExecution AssetOptions AssetOverrides AssetRef AssetTarget BackfillOptions
    CSVDestinationOptions Check CheckContext CheckFunction CheckOptions CheckResult CheckRow
    CheckSeverity CheckVerdict Columns ConformStrategy ConnectionOptions Coverage CoverageDimension
    CoverageOptions
    DAGMember DatabaseHooks DeclaredOptions Dependencies Dependency DependencyData DependencySpec
    DependencyTarget DestinationCounts DestinationCoverage DestinationOptions DestinationRelations
    DropTarget EventHandler ExecutionStatus FailedCheck FieldSpec FieldType FileDestinationOptions
    FileFormat FormatName GCSConnectionOptions GCSDestinationOptions GCSServiceAccountKey
    GranularityName HistoryOptions HistoryQuery IOLogLevel IOLogger InterloperConfig
    InterloperErrorOptions InterloperEvent ListPartitionOptions LocalObjectStoreOptions Logger
    LookbackOptions Materialization MaterializeOptions MaterializeOutcome MultiDimensions
    MultiPartitionOptions MultiPartitionPart MultiValues MySQLDestinationOptions NotRunPartition
    OpenProjectOptions OptionKind OptionKinds PartitionCounts PartitionCoverage PartitionDefinition
    PartitionFilter PartitionOf PartitionOutcome PartitionRecords PartitionStatus Plan
    PlanExecutionOptions PlanOptions PlannedRun PostgresDestinationOptions Project ProvenanceDraft
    RangeBound RangeOptions Representation Row RowCountChangeOptions RowCountOptions RowsDependency
    RunMetadata RunOptions S3ConnectionOptions S3DestinationOptions SQLiteDestinationOptions Session
    SessionCoverageOptions SessionMaterializeOptions SessionPlanOptions SessionReadOptions
    SessionSelection SourceDefinition SourceOptions StoredObject TimePartitionOptions
    TimeWindowMappingOptions UnreadablePartition UpstreamRead
`);

const ROOT = resolve(import.meta.dirname, "../../src/index.ts");

/**
 * The names a module exports and whether each is a value or only a type, read from the source
 * (parsed, not type-checked: `verbatimModuleSyntax` marks every type-only export), following
 * `export * from`.
 */
function exportsOf(file: string): Map<string, "value" | "type"> {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found = new Map<string, "value" | "type">();
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (!clause) {
        const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
        for (const [name, kind] of exportsOf(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))) found.set(name, kind);
      } else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) found.set(element.name.text, statement.isTypeOnly || element.isTypeOnly ? "type" : "value");
      } else found.set(clause.name.text, "value");
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) found.set(statement.name.text, "type");
    else if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) found.set(declaration.name.getText(source), "value");
    else if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name)
      found.set(statement.name.text, "value");
  }
  return found;
}

describe("the package root's exports", () => {
  it("are listed here, each list sorted", () => {
    expect(VALUES).toEqual([...VALUES].sort());
    expect(TYPES).toEqual([...TYPES].sort());
  });

  it("are exactly these values and types", () => {
    const exported = [...exportsOf(ROOT)];
    expect(
      exported
        .filter(([, kind]) => kind === "value")
        .map(([name]) => name)
        .sort(),
    ).toEqual(VALUES);
    expect(
      exported
        .filter(([, kind]) => kind === "type")
        .map(([name]) => name)
        .sort(),
    ).toEqual(TYPES);
  });

  it("are these values at run time", async () => {
    expect(Object.keys(await import("../../src/index.js")).sort()).toEqual(VALUES);
  });
});
