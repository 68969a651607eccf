import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The packages of this repository, the shared one first (each workspace's prepack builds it against the others' dist). */
export const PACKAGES = [
  '@esign-elements/shared',
  '@esign-elements/emulator',
  '@esign-elements/token-proxy',
  '@esign-elements/testing',
  'esign-elements',
] as const;
export type PackageName = (typeof PACKAGES)[number];

/** The folder of each package in this checkout. */
const FOLDERS: Record<PackageName, string> = {
  '@esign-elements/shared': 'packages/shared',
  '@esign-elements/emulator': 'packages/emulator',
  '@esign-elements/token-proxy': 'packages/token-proxy',
  '@esign-elements/testing': 'packages/testing',
  'esign-elements': '.',
};

/** The file name `npm pack` gives the package in `folder`. */
function tarballName(folder: string): string {
  const { name, version } = JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

/**
 * `npm pack` of `names` (default: all five) into `destination`, as npm publishes them (prepack builds each first);
 * returns each one's tarball path. Under `npm test` the pack script packed them once after the one build
 * (`ESIGN_PACK_DIR`, tmp/pack: package.json's wireit section): those are copied instead. @esign-elements/shared is not on the registry before the first release: a consumer
 * install of any other package here names its tarball too.
 */
export function packPackages(destination: string, names: readonly PackageName[] = PACKAGES): Record<PackageName, string> {
  const tarballs = {} as Record<PackageName, string>;
  for (const name of PACKAGES.filter((p) => names.includes(p))) {
    const packed = process.env['ESIGN_PACK_DIR'] && join(resolve(ROOT, process.env['ESIGN_PACK_DIR']), tarballName(FOLDERS[name]));
    if (packed && existsSync(packed)) {
      tarballs[name] = join(destination, tarballName(FOLDERS[name]));
      copyFileSync(packed, tarballs[name]);
      continue;
    }
    const args = ['pack', '--json', '--pack-destination', destination, ...(name === 'esign-elements' ? [] : ['-w', name])];
    // prepack (a build) prints to stdout before npm's JSON
    const out = execFileSync('npm', args, {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const [info] = JSON.parse(out.slice(out.lastIndexOf('[\n  {'))) as Array<{ filename: string }>;
    tarballs[name] = join(destination, info!.filename);
  }
  return tarballs;
}
