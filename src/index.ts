// The public barrel: every name a user imports from "interloper".
export * from "./errors.js";
export {
  date,
  ListPartition,
  ListPartitionConfig,
  ListPartitionWindow,
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
  type PartitionDefinition,
  type PartitionFilter,
  type TimePartitionOptions,
} from "./partitioning/index.js";
// The destination layer keeps its own barrel (also the "interloper/destination" entry point).
export * from "./destination/index.js";
export { registerRepresentation, TableData, type Columns, type Representation, type Row } from "./representation/index.js";
export {
  conform,
  fieldSpecs,
  inferFieldSpecs,
  reconcileRows,
  type ConformStrategy,
  type FieldSpec,
  type FieldType,
} from "./schema/index.js";
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
export { Upstream, type RowsDependency } from "./asset/upstream.js";
export { ExecutionContext, type Logger } from "./asset/execution-context.js";
export { source, Source, type SourceDefinition, type SourceOptions } from "./source/source.js";
export { DAG, type DAGMember, type Dependency } from "./dag/dag.js";
export { RunResult, type AssetExecution, type ExecutionStatus } from "./runner/run-result.js";
export { backfill, BackfillResult, type BackfillOptions, type NotRunPartition, type PartitionOutcome } from "./runner/backfill.js";
export type { RunOptions } from "./runner/run.js";
export { RunEvents, subscribe, type InterloperEvent, type EventHandler } from "./runner/events.js";
export { defineConfig, type InterloperConfig } from "./config/define-config.js";
export { loadConfig, type LoadedConfig } from "./config/load-config.js";
export { findAsset, loadProject, projectOf, resolvePathsFrom, type Project } from "./api/project.js";
export {
  MATERIALIZABLE,
  parseSelector,
  partitioned,
  selectAssets,
  type AssetFilter,
  type Selection,
  type Selector,
  type SelectorTarget,
} from "./api/select.js";
export { planMaterialize, type Plan, type PlanOptions, type PlannedRun } from "./api/plan.js";
export {
  materialize,
  materializePlan,
  type MaterializeOptions,
  type MaterializeOutcome,
  type PlanExecutionOptions,
} from "./api/materialize.js";
export { fullRefresh, fullRefreshTargets, type FullRefreshOutcome, type FullRefreshTarget } from "./api/full-refresh.js";
export { readAsset, type ReadResult } from "./api/read.js";
export { describeAssets, type AssetDescription } from "./api/describe.js";
export { resolveScope, type ScopeOptions } from "./api/scope.js";
export { CSVFormat, JSONLFormat, ParquetFormat, type FileFormat, type FormatName } from "./destination/format/index.js";
export {
  assetCoverage,
  computeCoverage,
  coverage,
  type Coverage,
  type CoverageOptions,
  type DestinationCounts,
  type DestinationCoverage,
  type PartitionCoverage,
  type PartitionStatus,
} from "./api/coverage/index.js";
export { missingPlanOptions, type MissingOptions } from "./api/missing.js";
