import type { FileMetaData, KeyValue } from "hyparquet";

// hyparquet decodes a column's name with a TextDecoder that drops a leading U+FEFF (a byte order
// mark, to it), and offers no way to decode names otherwise: a column "\uFEFFid" would read as
// "id", or as a second "id" beside a real one. A file with such a name carries its exact column
// names in its key-value metadata, and the reader puts them back before it reads a value.

const KEY = "interloper.column_names";
const BOM = "\uFEFF";

/** The key-value metadata keeping `names` exact, or undefined when no name needs it. */
export function exactNamesMetadata(names: readonly string[]): KeyValue[] | undefined {
  return names.some((name) => name.startsWith(BOM)) ? [{ key: KEY, value: JSON.stringify(names) }] : undefined;
}

/**
 * Gives the top-level columns of `metadata` (as hyparquet decoded it) their exact names from the
 * file's key-value metadata: only where the two differ by the one leading U+FEFF the decoder
 * dropped, and only when the list matches the columns one for one (a list that does not, from
 * another writer, is ignored).
 */
export function restoreExactNames(metadata: FileMetaData): void {
  const stored = metadata.key_value_metadata?.find((entry) => entry.key === KEY)?.value;
  if (stored === undefined) return;
  let names: unknown;
  try {
    names = JSON.parse(stored);
  } catch {
    return;
  }
  const [root, ...elements] = metadata.schema;
  // Only a flat schema: every element a top-level column.
  if (!root || root.num_children !== elements.length || elements.some((element) => element.num_children !== undefined)) return;
  if (!Array.isArray(names) || names.length !== elements.length) return;
  for (let i = 0; i < elements.length; i++) {
    const exact = names[i] as unknown;
    const decoded = elements[i]!.name;
    if (typeof exact !== "string" || (exact !== decoded && exact !== BOM + decoded)) return;
  }
  const renamed = new Map<number, string>();
  elements.forEach((element, i) => {
    const exact = names[i] as string;
    if (exact !== element.name) renamed.set(i, exact);
  });
  for (const [i, exact] of renamed) elements[i]!.name = exact;
  // Column chunks name their column by path; in a flat schema the i-th chunk is the i-th column.
  for (const group of metadata.row_groups) {
    group.columns.forEach((chunk, i) => {
      const exact = renamed.get(i);
      if (exact !== undefined && chunk.meta_data) chunk.meta_data.path_in_schema = [exact];
    });
  }
}
