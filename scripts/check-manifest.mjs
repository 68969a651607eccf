// Fails when custom-elements.json is not what the analyzer makes from src/ today.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// the analyzer resolves --outdir against the working directory
const out = `.cem-check-${process.pid}`;
try {
  execFileSync(process.execPath, ['node_modules/@custom-elements-manifest/analyzer/cem.js', 'analyze', '--outdir', out], { stdio: 'pipe' });
  const fresh = readFileSync(join(out, 'custom-elements.json'), 'utf8');
  let committed = '';
  try {
    committed = readFileSync('custom-elements.json', 'utf8');
  } catch {
    // missing counts as stale
  }
  if (JSON.stringify(JSON.parse(fresh)) !== (committed && JSON.stringify(JSON.parse(committed)))) {
    console.error('custom-elements.json is out of date: run `npm run analyze` and commit it.');
    process.exit(1);
  }
  // every part of the public surface tells a user when to use it (the autodocs show these sentences)
  const PLATFORM_CALLBACKS = /^(connected|disconnected|adopted|attributeChanged|formAssociated|formReset|formDisabled|formStateRestore)Callback$/;
  const missing = [];
  for (const mod of JSON.parse(committed).modules) {
    for (const decl of mod.declarations ?? []) {
      if (!decl.customElement) continue;
      for (const kind of ['attributes', 'events', 'slots', 'cssParts', 'cssProperties']) {
        for (const item of decl[kind] ?? []) if (!item.description?.trim()) missing.push(`${decl.tagName} ${kind} ${item.name || '(default slot)'}`);
      }
      for (const member of decl.members ?? []) {
        const hidden =
          member.privacy === 'private' || member.privacy === 'protected' || member.static || /^[#_]/.test(member.name) || PLATFORM_CALLBACKS.test(member.name);
        if (!hidden && !member.description?.trim()) missing.push(`${decl.tagName} ${member.kind} ${member.name}`);
      }
    }
  }
  if (missing.length) {
    console.error(`These have no description in custom-elements.json (add a JSDoc sentence):\n  ${missing.join('\n  ')}`);
    process.exit(1);
  }
  console.log('custom-elements.json is up to date, and every attribute, property, event, slot, part and CSS custom property is described.');
} finally {
  rmSync(out, { recursive: true, force: true });
}
