import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadCatalogDirOrThrow } from '../../src/declcfg/load.js';
import { runOpm } from '../run-cli.js';
import { expectedChannels } from './graph-expectations.js';
import { drawnChannels, parseSvg } from './svg-tree.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../testdata/graph');
const cases = readdirSync(root).sort();

async function draw(dir: string, format: string, ...flags: string[]): Promise<string> {
  const r = await runOpm(['alpha', 'render-graph', dir, '-o', format, ...flags]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('render-graph -o svg|html on testdata/graph/<case>: catalog/ and expected.svg, expected.html', () => {
  it('has the scenarios', () => {
    expect(cases).toEqual(expect.arrayContaining(['several-channels', 'problems']));
  });

  describe.each(cases)('%s', (name) => {
    const catalog = path.join(root, name, 'catalog');

    it.each(['svg', 'html'])('writes the expected %s, the same bytes every time', async (format) => {
      const first = await draw(catalog, format);
      expect(await draw(catalog, format)).toBe(first);
      const expectedFile = path.join(root, name, `expected.${format}`);
      // Regenerate with UPDATE_FIXTURES=1, then review the diff (and look at the picture).
      if (process.env.UPDATE_FIXTURES === '1') writeFileSync(expectedFile, first);
      expect(existsSync(expectedFile), `${expectedFile} is missing: run with UPDATE_FIXTURES=1`).toBe(true);
      expect(first).toBe(readFileSync(expectedFile, 'utf8'));
    });

    it('draws every channel entry as a node and every replaces, skips and skipRange edge', async () => {
      const cfg = await loadCatalogDirOrThrow(catalog);
      const drawn = drawnChannels(parseSvg(await draw(catalog, 'svg')));
      const expected = expectedChannels(cfg);
      expect(drawn.map((d) => `${d.package}/${d.channel}`).sort()).toEqual(
        expected.map((e) => `${e.package}/${e.channel}`).sort(),
      );
      for (const e of expected) {
        const d = drawn.find((x) => x.package === e.package && x.channel === e.channel);
        expect(d?.nodes.map((n) => n.name).sort()).toEqual(e.nodes);
        expect(d?.edges).toEqual(e.edges);
      }
    });
  });

  it('marks heads, the default channel, deprecations and the validator findings', async () => {
    const svg = await draw(path.join(root, 'several-channels', 'catalog'), 'svg');
    const lanes = drawnChannels(parseSvg(svg));
    const node = (channel: string, name: string) =>
      lanes.find((l) => l.channel === channel)?.nodes.find((n) => n.name === name);
    expect(node('stable', 'nimbus-operator.v1.2.1')?.classes).toContain('head');
    expect(node('stable', 'nimbus-operator.v1.1.1')?.classes).toContain('deprecated');
    expect(node('stable', 'nimbus-operator.v1.1.1')?.title).toContain('1.1.1 can lose bucket policies');
    expect(node('stable', 'nimbus-operator.v0.9.2')?.classes).toContain('unlisted');
    expect(svg).toMatch(/<rect class="lane default"[^>]*\/>\n<text class="lane-title"[^>]*>channel stable</);
    expect(svg).toContain('deprecated: The 0.9 line is no longer updated.');
    for (const l of lanes) expect(l.nodes.filter((n) => n.classes.includes('problem'))).toEqual([]);

    const bad = drawnChannels(parseSvg(await draw(path.join(root, 'problems', 'catalog'), 'svg')));
    const problems = (channel: string) =>
      bad
        .find((l) => l.package === 'broken-operator' && l.channel === channel)
        ?.nodes.filter((n) => n.classes.includes('problem'))
        .map((n) => n.name);
    expect(problems('stable')).toEqual(['broken-operator.v2.0.0']);
    expect(problems('fast')?.sort()).toEqual(['broken-operator.v2.1.0', 'broken-operator.v2.2.0']);
    expect(problems('preview')?.sort()).toEqual(['broken-operator.v2.1.0', 'broken-operator.v2.2.0']);
    const stranded = bad
      .find((l) => l.channel === 'stable')
      ?.nodes.find((n) => n.name === 'broken-operator.v2.0.0');
    expect(stranded?.title).toContain('has stranded bundles');
  });

  it('draws cycle edges as problems', async () => {
    const svg = await draw(path.join(root, 'problems', 'catalog'), 'svg');
    const cycle = [
      ...svg.matchAll(/<path class="edge replaces problem"[^>]*data-from="([^"]*)" data-to="([^"]*)"/g),
    ];
    expect(cycle.map((m) => `${m[1]} -> ${m[2]}`).sort()).toEqual([
      'broken-operator.v2.1.0 -> broken-operator.v2.2.0',
      'broken-operator.v2.2.0 -> broken-operator.v2.1.0',
    ]);
  });

  it('applies -p and --minimum-edge to svg and html as to mermaid', async () => {
    const problems = path.join(root, 'problems', 'catalog');
    for (const format of ['svg', 'html']) {
      const one = await draw(problems, format, '-p', 'tidy-operator');
      expect(one).toContain('data-package="tidy-operator"');
      expect(one).not.toContain('broken-operator');
    }
    const several = path.join(root, 'several-channels', 'catalog');
    const lanes = drawnChannels(
      parseSvg(await draw(several, 'svg', '--minimum-edge', 'nimbus-operator.v1.2.0')),
    );
    expect(lanes.map((l) => l.channel)).toEqual(['candidate', 'fast', 'stable']);
    const stable = lanes.find((l) => l.channel === 'stable');
    expect(stable?.nodes.map((n) => n.name).sort()).toEqual([
      'nimbus-operator.v1.2.0',
      'nimbus-operator.v1.2.1',
    ]);
    // The skipRange of 1.2.1 covers the floor, so it stays (as in the Mermaid writer); 1.1.x are gone.
    expect(stable?.edges).toEqual([
      'replaces nimbus-operator.v1.2.0 -> nimbus-operator.v1.2.1',
      'skipRange nimbus-operator.v1.2.0 -> nimbus-operator.v1.2.1',
    ]);
    const html = await draw(several, 'html', '--minimum-edge', 'nimbus-operator.v1.2.0');
    expect(html).not.toContain('data-channel="stable-v0"');
  });

  it('rejects an unknown format and an unknown minimum edge with one line', async () => {
    const several = path.join(root, 'several-channels', 'catalog');
    const r = await runOpm(['alpha', 'render-graph', several, '-o', 'png']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('invalid --output value "png", expected (mermaid|svg|html)');
    const m = await runOpm(['alpha', 'render-graph', several, '-o', 'svg', '--minimum-edge', 'nope']);
    expect(m.code).not.toBe(0);
    expect(m.stderr).toContain('unknown minimum edge name: "nope"');
    expect(m.stdout).toBe('');
  });

  it('README picture (docs/images/upgrade-graph.svg, npm run docs:graph) is what the code draws now', async () => {
    const picture = path.resolve(root, '../../docs/images/upgrade-graph.svg');
    expect(readFileSync(picture, 'utf8')).toBe(
      await draw(path.join(root, 'several-channels', 'catalog'), 'svg'),
    );
  });

  it('keeps mermaid the default', async () => {
    const several = path.join(root, 'several-channels', 'catalog');
    const plain = await runOpm(['alpha', 'render-graph', several]);
    expect(plain.stdout.startsWith('graph LR\n')).toBe(true);
    expect((await runOpm(['alpha', 'render-graph', several, '-o', 'mermaid'])).stdout).toBe(plain.stdout);
  });
});
