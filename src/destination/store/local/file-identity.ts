import type { BigIntStats } from "node:fs";

/**
 * Which file a record (a row count, an object's metadata) describes:
 * `{dev}:{ino}:{size}:{mtimeNs}:{ctimeNs}`, from a stat taken with `{ bigint: true }` (inode
 * numbers may pass 2^53; times in whole nanoseconds). A record is trusted only while the file
 * at its path has exactly this identity; any difference means another file or an edited one,
 * and the file is counted again. Why each part:
 *
 * - Size and modification time alone do not tell two files apart: file times advance in clock
 *   ticks (4 ms on this project's machines), and two writers replacing one partition within a
 *   tick with files of the same size left, in about one race in ten, the loser's count beside
 *   the winner's file, trusted from then on.
 *
 * - The inode number (with the device, which numbers are unique within) tells every file apart
 *   from every other file that exists at the same time. Each writer writes its own temporary
 *   file, a new inode, and the rename keeps that inode at the target path. Take writers A and B
 *   of one partition, each recording after its rename. [A renames, B renames, A records,
 *   B records]: B's record describes B's file, which is there: right. [A renames, B renames,
 *   B records, A records]: A's record is last, but it names A's inode, and the file there is
 *   B's, whose inode differs from A's because both files existed at once (A's at the path until
 *   B's rename, B's temporary file since before it): a mismatch, a recount. The orders starting
 *   with B's rename are the same with A and B swapped. A record also never vouches for an older
 *   file: the file it names did not exist before its writer made it.
 *
 * - Inode numbers are reused: once a file is removed (here: replaced by a rename), a new file
 *   may get its number (ext4 readily hands a freed one out again), and that file may have the
 *   same size and, within one tick, the same times. So a record is only ever written while the file
 *   it names is held open (`writeFileAtomic`'s `beforeRename`, or `whileOpen`; readers count
 *   through a handle and record before closing it): an open file's inode is not freed, so any file that later gets
 *   its number is created after the record landed, and that file's own record is written after
 *   it. The newest record of a path always wins.
 *
 * - The change time narrows what remains. The ledger (see ledger.ts) is append-only, so no
 *   writer puts back a line another has superseded (a reader's recount line, appended while it
 *   holds the counted file open, may land after a newer writer's line, but it names a file that
 *   existed beside the newer one: another inode, a mismatch, a recount). The per-table index of
 *   older versions, still read for the tables they wrote, was rewritten by read-merge-write and
 *   could hold a lost update: an entry naming an earlier file, trusted only if a reused inode's
 *   file also has the same size, the same mtime and the same ctime; the ctime is set by the
 *   rename itself (taken after it, on the still-open file), so the earlier file's last write,
 *   its sync and rename, its record, its replacement, and the whole write of the later file up to
 *   its rename would all have to fall within one tick.
 *
 * What being exact costs is recounts: `chmod` or a new hard link (new ctime) make every such
 * file counted once more, after which the reader's recount is in the ledger. A copy of the folder
 * (new devices and inodes) is known by its bytes instead: a write's line holds the SHA-256 of
 * its file, and a file no line names is hashed once and given a line of its own when it matches
 * (see ledger-copies.ts).
 *
 * Lines written before the rename (`identityBeforeRename`: `{dev}:{ino}:{size}:{mtimeNs}`). A
 * line that carries a write's materialization record must land in the same step as the data
 * (never data without its record, even under SIGKILL between the two), so a write appends its
 * line after its last byte and before its rename, with its temporary file open, and names the
 * file without its change time, which the rename sets. A line matches the file at a path when it
 * names its five parts or the first four, and the NEWEST matching line of a folder wins (not the
 * newest line): `currentEntry` in ledger-lines.ts. Why that is exact:
 *
 * - Every file a writer renames into place has its line, written before the rename: a kill
 *   before the append leaves neither (the old file and its line stay current), a kill between
 *   the append and the rename leaves a line naming the temporary file, which is never at the
 *   path, and a failed append fails the write before its rename.
 *
 * - Concurrent writers A and B of one partition: each names its own temporary file, and both
 *   exist at once, so their inode numbers differ. Whatever the order of [A appends, B appends,
 *   A renames, B renames], the file at the path is the last one renamed, and the only lines
 *   naming its inode are its writer's (and readers' recounts of that very file): B's line may
 *   be the newer, but it names B's inode, which is not at the path when A renamed last.
 *
 * - Reused inodes: a line's file is open when the line is written, so its inode is not freed
 *   before the line lands. A file F at the path now existed, with its inode, from before its
 *   writer's line to now. A line older than F's creation may name F's inode (a write killed
 *   before its rename whose temporary file was since removed, a replaced file), but F's own
 *   line, written later, is newer: the newest matching line is F's. A line newer than F's
 *   writer's that matches F was written while F existed, naming an open file with F's inode:
 *   F itself (a recount through a handle). Where F has no line of its own (a file put there by
 *   hand or by an older version after a killed write), an older line matches only if the killed
 *   writer's file had F's inode, size and modification time: its temporary file removed (by a
 *   sweep, which removes only files older than the sweeping process) and F written, all within
 *   one clock tick.
 *
 * - The record of a write (its `materialization` metadata) is only ever in such a line, never
 *   in a recount: the current record of a partition is that of the newest matching line that
 *   holds one, and a file recounted, edited by hand, or written by an older version has none
 *   (provenance unknown).
 */
export function fileIdentity(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}

/** The identity a line written before the rename names: `fileIdentity` without the change time, which the rename sets. */
export function identityBeforeRename(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}`;
}

/**
 * Whether a line naming `named` describes the file of identity `identity` (five parts): the same
 * five parts, or the four of `identityBeforeRename`.
 */
export function namesFile(named: string, identity: string): boolean {
  if (named === identity) return true;
  return (
    named.length < identity.length &&
    identity.charCodeAt(named.length) === 58 &&
    identity.startsWith(named) &&
    identity.indexOf(":", named.length + 1) === -1
  );
}

/** The four parts of an identity of four or five parts (see `identityBeforeRename`); null for anything else. */
export function beforeRenamePart(identity: string): string | null {
  const parts = identity.split(":");
  if (parts.length !== 4 && parts.length !== 5) return null;
  return parts.slice(0, 4).join(":");
}

/** The modification time in milliseconds an identity of four or five parts names; null for anything else. */
export function modifiedMs(identity: string): number | null {
  const parts = identity.split(":");
  if ((parts.length !== 4 && parts.length !== 5) || !/^\d+$/.test(parts[3]!)) return null;
  return Number(BigInt(parts[3]!) / 1_000_000n);
}
