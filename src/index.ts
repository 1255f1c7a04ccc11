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
  type GranularityName,
  type ListPartitionOptions,
  type LookbackOptions,
  type PartitionDefinition,
  type PartitionFilter,
  type TimePartitionOptions,
} from "./partitioning/index.js";
