// opm compose beside the documentation's script driving the reference opm (test/compose/docs-script.sh:
// yq, mkdir, `opm render` per reference one after another, `opm generate dockerfile`), on the corpus
// composite served from docker-registry on 127.0.0.1 (test/compose/composite.ts: one catalog image
// per package of community-catalog-v4.21). Whole processes (`bin/opm.js compose` against `sh
// docs-script.sh`), measured by GNU time, alternated pair by pair (which one starts a pair alternates
// too); the figure is the median of the pairwise ratios opm-ts / script with their range, as
// bench/user.ts does. opm-ts runs with --no-cache: the reference keeps no blob cache between runs,
// so both pull every blob each time, and opm-ts validates the result, which the script does not.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startPlainRegistry } from '../test/registry/fixture.js';
import { have } from '../test/registry/tools.js';
import { DOCS_SCRIPT, pushComposite, writeCatalogFile } from '../test/compose/composite.js';
import type { ReferenceRow } from './reference.js';
import { cellOf, runProcess, type Sample } from './user.js';

export async function composeBench(opts: {
  root: string;
  reference: string;
  corpus: string | undefined;
  runs: number;
}): Promise<ReferenceRow[]> {
  if (opts.corpus === undefined || !have('docker-registry') || !have('yq')) {
    process.stderr.write('*** compose rows need the corpus, docker-registry and yq: not run ***\n');
    return [];
  }
  const work = mkdtempSync(path.join(tmpdir(), 'opm-bench-compose-'));
  const registry = await startPlainRegistry(work, 'compose');
  try {
    const composite = await pushComposite(registry.url, registry.host);
    const catalogFile = path.join(work, 'catalog.yaml');
    writeCatalogFile(catalogFile, 'community-operators', composite.catalogs);
    const env = { ...process.env, HOME: work, OLM_CACHE_DIR: path.join(work, 'cache') };
    // Each run in a fresh folder holding the catalog file, made (and removed) outside the timing.
    const fresh = (side: string): string => {
      const dir = path.join(work, side);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      writeCatalogFile(path.join(dir, 'catalog.yaml'), 'community-operators', composite.catalogs);
      return dir;
    };
    const ours = (): Sample => {
      const dir = fresh('ours');
      const opm = path.join(opts.root, 'bin', 'opm.js');
      return runProcess(
        [
          'sh',
          '-c',
          `cd "$1" && exec "$2" "$3" compose catalog.yaml --use-http --no-cache --quiet`,
          'sh',
          dir,
          process.execPath,
          opm,
        ],
        false,
        env,
        true,
      );
    };
    const script = (): Sample => {
      const dir = fresh('script');
      return runProcess(
        ['sh', '-c', 'cd "$1" && exec sh "$2" catalog.yaml', 'sh', dir, DOCS_SCRIPT],
        false,
        { ...env, OPM: opts.reference, OPM_RENDER_FLAGS: '--use-http' },
        true,
      );
    };
    const pairs: [Sample, Sample][] = [];
    for (let i = 0; i < opts.runs; i++) {
      if (i % 2 === 0) {
        const o = ours();
        pairs.push([o, script()]);
      } else {
        const s = script();
        pairs.push([ours(), s]);
      }
    }
    const c = cellOf(pairs);
    const r2 = (x: number): number => Math.round(x * 100) / 100;
    const name = `compose ${composite.catalogs.length} catalog images vs the docs' script (range ${c.min.toFixed(2)}-${c.max.toFixed(2)})`;
    return [
      {
        name,
        cores: 'all',
        refMs: Math.round(c.refMs),
        opmMs: Math.round(c.oursMs),
        refCpuMs: undefined,
        opmCpuMs: undefined,
        refMB: c.refMB === undefined ? undefined : Math.round(c.refMB),
        opmMB: c.oursMB === undefined ? undefined : Math.round(c.oursMB),
        ratio: r2(c.median),
        cpuRatio: c.cpu === undefined ? undefined : r2(c.cpu),
        target: c.failed ?? '-',
        ok: c.failed === undefined ? undefined : false,
      },
    ];
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
