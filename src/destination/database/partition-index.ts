import type { PartitionConfig } from "../../partitioning/index.js";
import { keyColumns } from "./partition-columns.js";
import type { SqlDialect } from "./sql-dialect.js";
import { dropIndexStatement, indexName } from "./sql-statements.js";

/** A table as SQL names it (quoted, with its dataset), its dataset and its own name. */
export type TableNames = readonly [qualified: string, dataset: string | null, table: string];

/**
 * The partition index of each table a SqlDestination writes (tables keyed by [dataset, table]
 * as JSON): on the partition column, or on the expression its filters compare
 * (`SqlDialect.indexedExpression`), made when the column is, or deferred to the first load. A
 * multi partitioning's index covers every dimension's column (or expression), in declared order:
 * its filters compare them all.
 */
export class PartitionIndexes {
  // Indexes of tables this instance just created, built once their first write has loaded:
  // building an index over loaded rows is far cheaper than maintaining it row by row.
  readonly #pending = new Map<string, string>();
  // Tables whose partition index on an expression this instance made sure of.
  readonly #ensured = new Set<string>();

  /** `dialect` is asked at each use (MySQL's follows its server); `ddl` runs DDL, tolerating a concurrent writer's. */
  constructor(
    private readonly dialect: () => SqlDialect,
    private readonly ddl: (sql: string) => Promise<void>,
  ) {}

  /** Indexes the partition columns of catalog `types` (in `keyColumns` order) just created or added; `defer`: once the table's first write has loaded. */
  async added(key: string, names: TableNames, types: readonly string[], partitioning: PartitionConfig, defer: boolean): Promise<void> {
    const { statement } = this.#index(names, types, partitioning);
    if (defer) this.#pending.set(key, statement);
    else await this.ddl(statement);
    this.#ensured.add(key);
  }

  /** A table made by an older version, or by hand, may lack its partition index on an expression: made once per instance. */
  async ensureOnExpression(
    key: string,
    names: TableNames,
    columns: ReadonlyMap<string, string>,
    partitioning: PartitionConfig | null,
  ): Promise<void> {
    const keys = keyColumns(partitioning);
    const types = keys.map((k) => columns.get(k.column));
    if (keys.length === 0 || types.some((type) => type === undefined) || this.#ensured.has(key)) return;
    this.#ensured.add(key);
    const index = this.#index(names, types as string[], partitioning!);
    if (!index.onExpression) return;
    await this.ddl(index.statement);
    // Older versions indexed a single partition column's expressions of their own.
    if (keys.length !== 1) return;
    const [, dataset, table] = names;
    for (const stale of this.dialect().staleIndexedExpressions(keys[0]!.column, types[0]!))
      await this.ddl(dropIndexStatement(this.dialect().quote(indexName(dataset, table, stale))));
  }

  /** Builds the indexes deferred so far. */
  async buildDeferred(): Promise<void> {
    for (const [key, statement] of [...this.#pending]) {
      this.#pending.delete(key);
      await this.ddl(statement);
    }
  }

  /** Forgets a dropped table's deferred index. */
  forget(key: string): void {
    this.#pending.delete(key);
  }

  /**
   * The statement creating the partition index of a table, its partition column being of
   * catalog `type`. An expression's index has a name of its own: a table of an older version
   * holds the plain column's index under the column's name.
   */
  #index(
    [qualified, dataset, table]: TableNames,
    types: readonly string[],
    partitioning: PartitionConfig,
  ): { statement: string; onExpression: boolean } {
    const dialect = this.dialect();
    const keys = keyColumns(partitioning);
    const expressions = keys.map((k, i) => dialect.indexedExpression(k.column, types[i]!, k.time));
    const onExpression = keys.some((k, i) => expressions[i] !== dialect.quote(k.column));
    // A single column's index keeps the name older versions gave it (the column's, or its expression's).
    const named = keys.length === 1 ? (onExpression ? expressions[0]! : keys[0]!.column) : JSON.stringify(expressions);
    return { statement: dialect.createIndex(qualified, indexName(dataset, table, named), expressions.join(", ")), onExpression };
  }
}
