// Counts and verbs in messages agree with their number: "1 row", "2 rows", "db holds",
// "db, files hold". Every message that counts something or names a list as a subject goes
// through these, so no "row(s)" or "1 rows" reaches a user.

/** "1,234,567": a count as the messages print it. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

/** The noun for `n` of it: `noun` for one, else `plural` (default: noun + "s"). */
export function nounFor(n: number, noun: string, plural = `${noun}s`): string {
  return n === 1 ? noun : plural;
}

/** "1 row", "0 rows", "1,200 partitions". */
export function count(n: number, noun: string, plural?: string): string {
  return `${formatCount(n)} ${nounFor(n, noun, plural)}`;
}

/** A list of names as the subject of a verb: "db holds", "db, files hold" (singular and plural verb given). */
export function subject(names: readonly string[], singular: string, plural: string): string {
  return `${names.join(", ")} ${names.length === 1 ? singular : plural}`;
}
