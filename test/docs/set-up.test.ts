// The README's set-up names exactly the Debian packages that .ci/run installs, so that a machine
// set up from the README runs the same tests CI runs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The packages of every `apt-get install` command in `text`: its words that are not options. */
function installed(text: string): string[] {
  const packages = [...text.matchAll(/apt-get install ([^\n]*)/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(/\s+/)
      .filter((w) => w !== '' && !w.startsWith('-') && !w.startsWith('>') && !w.startsWith('2>')),
  );
  return [...new Set(packages)].sort();
}

describe('README set-up', () => {
  it('lists the packages .ci/run installs, no more and no fewer', () => {
    const ci = installed(readFileSync(path.join(root, '.ci/run'), 'utf8'));
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const marker = readme.indexOf('<!-- ci packages -->');
    expect(marker).toBeGreaterThan(0);
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
    expect(ci.length).toBeGreaterThan(3);
    expect(installed(block?.[1] ?? '')).toEqual(ci);
    // Each is named in the sentence that says what it is for.
    const after = readme.slice(marker, readme.indexOf('\n## ', marker));
    for (const p of ci) expect(after).toContain(`\`${p}\``);
  });

  it('asks for the Node.js version package.json requires', () => {
    const { engines } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const version = /^>=(\d+\.\d+)$/.exec(engines.node)?.[1];
    expect(version).toBeDefined();
    expect(readme).toContain(`opm-ts needs Node.js ${version ?? ''} or newer`);
  });
});
