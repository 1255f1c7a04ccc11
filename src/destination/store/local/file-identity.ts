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
 *   it names is held open (`writeFileAtomic`'s `whileOpen`; readers count through a handle and
 *   record before closing it): an open file's inode is not freed, so any file that later gets
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
 * What being exact costs is recounts: a copy of the folder (new inodes),
 * `chmod` or a new hard link (new ctime) make every such file counted once more, after which
 * the reader's recount is in the ledger.
 */
export function fileIdentity(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}
