// integration: every bundle directory of the corpus catalog rendered and compared.
import { describe, expect, it } from 'vitest';
import { haveCorpus } from '../corpus.js';
import { communityBundleDirs, catalogBundles } from './corpus-helpers.js';
import { parseBundleDir } from '../../src/bundle/parse.js';
import { render } from '../../src/action/render/render.js';
import { emitYaml } from '../../src/yaml/emit.js';
import type { Bundle } from '../../src/declcfg/types.js';

/** The blob as opm marshals an olm.bundle (YAML sorts keys; absent optional fields are left out). */
function blobOf(b: Bundle): Record<string, unknown> {
  return {
    schema: b.schema,
    name: b.name,
    package: b.package,
    image: b.image,
    ...(b.properties === undefined ? {} : { properties: b.properties }),
    ...(b.relatedImages === undefined ? {} : { relatedImages: b.relatedImages }),
  };
}

describe.runIf(haveCorpus())(
  'community bundle directories render as opm rendered them into the catalog',
  () => {
    it('every bundle found in community-catalog-v4.21 matches its blob', async () => {
      const dirs = communityBundleDirs();
      let compared = 0;
      const mismatches: string[] = [];
      const notInCatalog: string[] = [];
      const byPkg = new Map<string, ReturnType<typeof catalogBundles>>();
      for (const d of dirs) {
        let cat = byPkg.get(d.pkg);
        if (cat === undefined) {
          cat = catalogBundles(d.pkg);
          byPkg.set(d.pkg, cat);
        }
        const parsed = await parseBundleDir(d.dir);
        const expected = cat.get(parsed.name);
        if (expected === undefined) {
          notInCatalog.push(`${d.pkg}/${d.version}`);
          continue;
        }
        const image = expected.blob.image;
        if (typeof image !== 'string') throw new Error('catalog blob without image');
        const cfg = await render({
          refs: [d.dir],
          imageRefTemplate: image,
          migrateLevel: 'bundle-object-to-csv-metadata',
        });
        compared++;
        const bundle = cfg.bundles[0];
        if (bundle === undefined) throw new Error('no bundle rendered');
        try {
          expect('---\n' + emitYaml(blobOf(bundle))).toBe(expected.yaml);
        } catch (err) {
          mismatches.push(
            `${d.pkg}/${d.version}: ${err instanceof Error ? err.message.slice(0, 3000) : String(err)}`,
          );
        }
      }
      console.log(
        `community bundles: ${compared - mismatches.length}/${compared} equal; not in catalog: ${notInCatalog.join(', ')}`,
      );
      expect(mismatches).toEqual([]);
    });
  },
);
