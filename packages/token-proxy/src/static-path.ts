/**
 * The one check of what a static folder may serve (the token proxy's `--static`, the test kit's site): no segment
 * starting with '.' (dotfiles, `.git`, dot segments), percent-encoded or not, and a real path (symlinks resolved, and
 * index.html for a folder) inside the folder. Node only.
 */
import { realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** The real path of the file `target` names under `root` (the folder's real path), or undefined when it may not be served. */
export async function servableFile(root: string | undefined, target: string): Promise<string | undefined> {
  if (root === undefined) return undefined;
  let names: string[];
  try {
    names = target
      .split(/[?#]/, 1)[0]!
      .split('/')
      .filter(Boolean)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  // each decoded segment is one plain name: no leading '.', no separator or NUL smuggled in encoded
  if (names.some((name) => /^\.|[/\\\0]/.test(name))) return undefined;
  try {
    let real = await realpath(join(root, ...names));
    if ((await stat(real)).isDirectory()) real = await realpath(join(real, 'index.html'));
    return real.startsWith(root.endsWith(sep) ? root : root + sep) ? real : undefined;
  } catch {
    // nothing there: a 404 either way
    return undefined;
  }
}
