export { Partition, PartitionConfig, PartitionWindow, type PartitionDefinition } from "./base.js";
export type { PartitionFilter } from "./filter.js";
export { TimeGranularity, type GranularityName } from "./granularity.js";
export { TimePartition, TimePartitionConfig, TimePartitionWindow, type LookbackOptions, type TimePartitionOptions } from "./time.js";
export { ListPartition, ListPartitionConfig, ListPartitionWindow, type ListPartitionOptions } from "./list.js";
export { MultiPartitionConfig, parseMultiKey, type ListDimension, type MultiPartitionOptions, type TimeDimension } from "./multi.js";
export type { DimensionConfig, MultiDimension, MultiDimensions } from "./multi-dimensions.js";
export { parseMultiValues } from "./multi-key.js";
export { MultiPartition, type DimensionPartition, type MultiPartitionPart } from "./multi-partition.js";
export { checkedValues, MultiPartitionWindow, type MultiValues } from "./multi-window.js";
export { listDimensionFor, timeConfigOf } from "./multi-mapping.js";
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
