export { Partition, PartitionConfig, PartitionWindow, type PartitionDefinition } from "./base.js";
export type { PartitionFilter } from "./filter.js";
export { TimeGranularity, type GranularityName } from "./granularity.js";
export { TimePartition, TimePartitionConfig, TimePartitionWindow, type LookbackOptions, type TimePartitionOptions } from "./time.js";
export { ListPartition, ListPartitionConfig, ListPartitionWindow, type ListPartitionOptions } from "./list.js";
export { date } from "./date.js";
export {
  edgeProblem,
  periodsWithin,
  previousPeriod,
  spanning,
  TimeWindowMapping,
  trailing,
  upstreamWindow,
  type EdgeEnd,
  type TimeWindowMappingOptions,
} from "./mapping.js";
