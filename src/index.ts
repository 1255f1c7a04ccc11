// The public barrel: every name a user imports from "interloper": the definitions (partitionings,
// destinations, representations, assets, sources, the DAG, errors, the config) and the runtime
// that docs/concepts.md shows scripts using. What the command line alone calls stays in its
// module; test/architecture/exports.test.ts pins this list, so that a new name is a decision.
export {
  AssetError,
  CheckError,
  CircularDependencyError,
  ConfigError,
  DAGError,
  DataNotFoundError,
  DependencyNotFoundError,
  DestinationWriteError,
  InterloperError,
  PartitionError,
  SchemaError,
  UnreadableDataError,
  type FailedCheck,
  type InterloperErrorOptions,
} from "./errors.js";
export {
  date,
  ListPartition,
  ListPartitionConfig,
  ListPartitionWindow,
  MultiPartition,
  MultiPartitionConfig,
  MultiPartitionWindow,
  Partition,
  PartitionConfig,
  PartitionWindow,
  TimeGranularity,
  TimePartition,
  TimePartitionConfig,
  TimePartitionWindow,
  TimeWindowMapping,
  previousPeriod,
  trailing,
  type GranularityName,
  type TimeWindowMappingOptions,
  type ListPartitionOptions,
  type LookbackOptions,
  type MultiDimensions,
  type MultiPartitionOptions,
  type MultiPartitionPart,
  type MultiValues,
  type PartitionDefinition,
  type PartitionFilter,
  type TimePartitionOptions,
} from "./partitioning/index.js";
// The destination layer keeps its own barrel (also the "interloper/destination" entry point).
export * from "./destination/index.js";
export { registerRepresentation, TableData, type Columns, type Representation, type Row } from "./representation/index.js";
export { fieldSpecs, inferFieldSpecs, type ConformStrategy, type FieldSpec, type FieldType } from "./schema/index.js";
export {
  asset,
  type AssetDefinition,
  type AssetOptions,
  type AssetTarget,
  type Dependencies,
  type DependencyData,
  type DependencySpec,
  type DependencyTarget,
} from "./asset/definition.js";
export { Asset, type AssetOverrides } from "./asset/asset.js";
export {
  check,
  checks,
  type Check,
  type CheckContext,
  type CheckFunction,
  type CheckOptions,
  type CheckRow,
  type CheckSeverity,
  type CheckVerdict,
  type RangeBound,
  type RangeOptions,
  type RowCountChangeOptions,
  type RowCountOptions,
} from "./check/index.js";
export type { HistoryOptions } from "./asset/asset-history.js";
export { Upstream, type RowsDependency } from "./asset/upstream.js";
export { ExecutionContext, type Logger, type PartitionOf } from "./asset/execution-context.js";
export { source, Source, type SourceDefinition, type SourceOptions } from "./source/source.js";
export { DAG, type DAGMember, type Dependency } from "./dag/dag.js";
export { RunResult, type AssetExecution, type ExecutionStatus } from "./runner/run-result.js";
export { backfill, BackfillResult, type BackfillOptions, type NotRunPartition, type PartitionOutcome } from "./runner/backfill.js";
export type { RunOptions } from "./runner/run.js";
export { RunEvents, subscribe, type InterloperEvent, type EventHandler } from "./runner/events.js";
export { defineConfig, type InterloperConfig } from "./config/define-config.js";
export { loadProject, type Project } from "./api/project.js";
export {
  openProject,
  type OpenProjectOptions,
  type Session,
  type SessionCoverageOptions,
  type SessionMaterializeOptions,
  type SessionPlanOptions,
  type SessionReadOptions,
  type SessionSelection,
} from "./api/session/index.js";
export { planMaterialize, type Plan, type PlanOptions, type PlannedRun } from "./api/plan.js";
export {
  materialize,
  materializePlan,
  type MaterializeOptions,
  type MaterializeOutcome,
  type PlanExecutionOptions,
} from "./api/materialize.js";
export { CSVFormat, JSONLFormat, ParquetFormat, type FileFormat, type FormatName } from "./destination/format/index.js";
export {
  assetCoverage,
  coverage,
  type Coverage,
  type CoverageDimension,
  type CoverageOptions,
  type DestinationCounts,
  type DestinationCoverage,
  type PartitionCoverage,
  type PartitionStatus,
} from "./api/coverage/index.js";
