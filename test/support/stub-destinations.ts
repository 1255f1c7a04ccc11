// Destinations whose hooks store nothing, for tests of what the base classes do around them
// (options, refusals): user classes as a config would declare them, without the drop hook.
import { DatabaseDestination, Destination } from "../../src/destination/index.js";

/** A Destination subclass with the three hooks every destination implements, and nothing stored. */
export class InertDestination extends Destination {
  writePartition(): void {}
  readPartition(): unknown {
    return null;
  }
  partitionRowCounts(): Record<string, number> {
    return {};
  }
}

/** A DatabaseDestination subclass whose table hooks do nothing. */
export class InertDatabaseDestination extends DatabaseDestination {
  insert(): void {}
  delete(): void {}
  select(): null {
    return null;
  }
  count(): Record<string, number> {
    return {};
  }
}
