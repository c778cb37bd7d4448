/**
 * Putting a new drop in place at once (docs/data-drops.md#build): the drop is written and
 * validated in a directory beside its destination, then renamed into place, so that a server
 * watching the destination sees the old drop or the new one, never a mix, and a build that fails
 * leaves the destination as it was.
 *
 * - The destination does not exist: the new directory is renamed to it.
 * - It is a directory: it is renamed aside (`OUT.old-<stamp>`), the new one renamed to it, the old
 *   one removed. Entries of the old directory that are not part of the drop (`data/sources/`, a
 *   README) are moved into the new one first, so that nothing the analyst keeps there is lost.
 * - It is a symbolic link (`current -> drops/v1`): the new drop stays a directory of its own beside
 *   the link's target, and the link is re-pointed at it in one rename; the old target is kept, so
 *   that rolling back is pointing the link back.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import { lstat, mkdir, readdir, realpath, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * A new directory beside `out` (same file system, so that the final rename is atomic). Made
 * synchronously, last: the caller has its name before a signal can be handled, to remove it then.
 */
export async function stagingDir(out: string): Promise<string> {
  const parent = await placeOf(out);
  await mkdir(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, `.${path.basename(out)}.new-`));
  // mkdtemp makes it private (0700); a drop is read by the server, which may run as another user.
  chmodSync(dir, 0o755);
  return dir;
}

/** Where the new drop is written: beside the link's target when `out` is a symlink, else beside `out`. */
async function placeOf(out: string): Promise<string> {
  const stats = await lstat(out).catch(() => null);
  if (stats?.isSymbolicLink()) return path.dirname(await realpath(out));
  return path.dirname(out);
}

/**
 * Moves the drop in `staged` to `out` as described above. `dropFiles` are the names of the files
 * a drop consists of (drop.json and the Parquet files): any other entry of the old directory is
 * carried over. Returns where the drop now lives (the link's new target for a symlink).
 */
export async function replaceDir(staged: string, out: string, dropFiles: ReadonlySet<string>, version: string): Promise<string> {
  const stats = await lstat(out).catch(() => null);
  if (!stats) {
    await rename(staged, out);
    return out;
  }
  if (stats.isSymbolicLink()) return flipLink(staged, out, version);
  if (!stats.isDirectory()) throw new Error(`${out} exists and is not a directory`);

  const carried: string[] = [];
  for (const entry of await readdir(out)) {
    if (dropFiles.has(entry) || /^\..*\.tmp$/.test(entry)) continue;
    await rename(path.join(out, entry), path.join(staged, entry));
    carried.push(entry);
  }
  const aside = `${out}.old-${stamp()}`;
  try {
    await rename(out, aside);
  } catch (error) {
    for (const entry of carried) await rename(path.join(staged, entry), path.join(out, entry));
    throw error;
  }
  try {
    await rename(staged, out);
  } catch (error) {
    await rename(aside, out);
    for (const entry of carried) await rename(path.join(staged, entry), path.join(out, entry));
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
  return out;
}

/** Names the new directory after the drop's version, then re-points the link with one rename of a new link over it. */
async function flipLink(staged: string, link: string, version: string): Promise<string> {
  const name =
    version
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[.-]+|-+$/g, '')
      .slice(0, 80) || 'drop';
  let target = path.join(path.dirname(staged), name);
  if (await lstat(target).catch(() => null)) target = `${target}-${stamp()}`;
  await rename(staged, target);
  const relative = path.relative(path.dirname(link), target);
  const tmpLink = path.join(path.dirname(link), `.${path.basename(link)}.link-${stamp()}`);
  await symlink(relative, tmpLink);
  await rename(tmpLink, link);
  return target;
}

const stamp = () => `${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '')}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
