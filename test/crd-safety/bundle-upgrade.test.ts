/**
 * The CRD upgrade between two bundle directories as library functions (what `alpha bundle validate
 * --upgrade-from` runs): the same problems validate reports for that edge, each on the new
 * bundle's CRD manifest; wrong arguments are a TypeError naming the argument.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBundleUpgrade, readBundleRef, bundleUpgradeFindings } from '../../src/index.js';
import { projectRoot } from '../corpus.js';

const bundles = path.join(projectRoot(), 'testdata/validate/lint-crd-existing-field-removal/bundles');

describe('checkBundleUpgrade', () => {
  it('finds what validate finds on that edge, on the new CRD manifest', async () => {
    const findings = await checkBundleUpgrade(path.join(bundles, '1.0.0'), path.join(bundles, '1.1.0'), {
      toName: 'widgets.v1.1.0',
    });
    expect(findings.map((f) => [f.rule, f.severity, f.file])).toEqual([
      ['crd.existing-field-removal', 'error', 'manifests/widgets.example.com.crd.json'],
      ['crd.type', 'error', 'manifests/widgets.example.com.crd.json'],
    ]);
    expect(findings[0]?.message).toBe(
      `upgrade ${path.join(bundles, '1.0.0')} -> widgets.v1.1.0: CRD "widgets.example.com": existingFieldRemoval: removed field : v1.^.spec.free`,
    );
  });

  it('an upgrade to the same bundle is safe; relative directories resolve against cwd', async () => {
    const same = await readBundleRef('1.1.0', { cwd: bundles });
    expect(bundleUpgradeFindings(same, same)).toEqual([]);
  });

  it('names the bundle it cannot read, and refuses wrong arguments', async () => {
    await expect(checkBundleUpgrade(path.join(bundles, 'none'), path.join(bundles, '1.1.0'))).rejects.toThrow(
      /^--upgrade-from .*none: .*registry client/,
    );
    await expect(checkBundleUpgrade(1 as unknown as string, 'x')).rejects.toThrow(TypeError);
  });
});
