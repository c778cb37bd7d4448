import { renameSync, symlinkSync } from 'node:fs';

/**
 * Re-points `link` at `target` atomically, as GNU `ln -sfn target link` does: a new link under a
 * temporary name, renamed over the old one, so the link never dangles or disappears.
 */
export function flipSymlink(link: string, target: string): void {
  const tmp = `${link}.tmp-${process.pid}`;
  symlinkSync(target, tmp);
  renameSync(tmp, link);
}
