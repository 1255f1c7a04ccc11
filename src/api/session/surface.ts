// What a program driving sessions checks before it opens one (the command line's flags), and
// the shapes the session's methods answer with: with the Session, the one surface of the runtime.
export { checkFullRefreshOptions, type FullRefreshTarget } from "../full-refresh.js";
export { parseShard, type Plan, type PlanOptions, type Shard, type SkippedAsset } from "../plan.js";
export {
  SUSPICIOUS_RATIO,
  multiKeyOf,
  type Coverage,
  type CoverageCombination,
  type CoverageDimension,
  type DestinationCoverage,
  type PartitionCoverage,
  type PartitionStatus,
} from "../coverage/index.js";
export type { PartitionInDestination } from "../coverage/partition-details.js";
export type { AssetDescription } from "../describe.js";
export type { HistoryOptions } from "../../asset/asset-history.js";
export type { Staleness } from "../../asset/staleness.js";
export type { MultiValues } from "../../partitioning/index.js";
export type { Materialization, UpstreamRead } from "../../destination/provenance/materialization.js";
export type { MaterializeOutcome } from "../materialize.js";
export type { MissingOptions } from "../missing.js";
export type { Project } from "../project.js";
export type { AssetVerification, VerifiedPartition, VerifyOptions } from "../verify.js";
export type { CheckVerdict } from "../../check/index.js";
