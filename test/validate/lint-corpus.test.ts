// needs-corpus: builds on ../shared/corpus; without it this file is left out, loudly (vitest.config.ts).
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateCatalog, type ValidateOptions } from '../../src/action/validate/validate.js';
import type { Finding } from '../../src/findings.js';
import { ruleInfo, type RuleId } from '../../src/rules.js';
import { corpusPath, haveCorpus } from '../corpus.js';

describe.runIf(haveCorpus())('rules beyond opm on the corpus', () => {
  it('every corpus catalog still passes with default settings; new findings are warnings', async () => {
    const decl = corpusPath('opm-testdata', 'index-declcfgs');
    const dirs = [
      corpusPath('community-catalog-v4.21'),
      corpusPath('cool-catalog', 'catalog'),
      corpusPath('opm-testdata', 'list-index'),
      corpusPath('opm-testdata', 'foo-index-v0.2.0-declcfg'),
      ...(await readdir(decl)).sort().map((d) => path.join(decl, d)),
    ];
    const counts = new Map<string, number>();
    for (const dir of dirs) {
      const r = await validateCatalog(dir);
      expect({ dir, passed: r.passed }).toEqual({ dir, passed: true });
      for (const f of r.findings) {
        expect(f.severity).toBe('warning');
        if (!ruleInfo(f.rule).opm) counts.set(f.rule, (counts.get(f.rule) ?? 0) + 1);
      }
    }
    // Policies are off by default: none of their findings appear.
    expect([...counts.keys()].filter((id) => id.startsWith('policy.'))).toEqual([]);
  });
});

describe.runIf(haveCorpus())('rules beyond opm on mutations of a real package', () => {
  const temps: string[] = [];
  afterAll(async () => {
    for (const t of temps) await rm(t, { recursive: true, force: true });
  });

  const PKG = 'kube-green';
  const FILE = `${PKG}/catalog.yaml`;
  const HEAD = 'kube-green.v0.7.1';

  /** Copy one package of the corpus into a temp catalog, edit its file, validate it. */
  async function mutated(
    mutate: (text: string) => string,
    opts: ValidateOptions = {},
  ): Promise<{ text: string; findings: Finding[]; passed: boolean; dir: string }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'opm-lint-corpus-'));
    temps.push(dir);
    await cp(corpusPath('community-catalog-v4.21', PKG), path.join(dir, PKG), { recursive: true });
    const file = path.join(dir, FILE);
    const before = await readFile(file, 'utf8');
    const text = mutate(before);
    expect(text).not.toBe(before);
    await writeFile(file, text);
    const r = await validateCatalog(dir, opts);
    return { text, findings: r.findings, passed: r.passed, dir };
  }

  /** Insert properties at the top of the head bundle's property list. */
  const addProperty =
    (yaml: string) =>
    (t: string): string =>
      t.replace(
        `name: ${HEAD}\npackage: ${PKG}\nproperties:\n`,
        `name: ${HEAD}\npackage: ${PKG}\nproperties:\n${yaml}`,
      );
  const appendBlob =
    (yaml: string) =>
    (t: string): string =>
      `${t}---\n${yaml}`;

  function only(findings: Finding[], rule: RuleId): Finding[] {
    return findings.filter((f) => f.rule === rule);
  }

  it('the unmodified package has no findings with default settings', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'opm-lint-corpus-'));
    temps.push(dir);
    await cp(corpusPath('community-catalog-v4.21', PKG), path.join(dir, PKG), { recursive: true });
    expect((await validateCatalog(dir)).findings).toEqual([]);
  });

  it.each<[RuleId, (t: string) => string, string]>([
    [
      'dependency.range-invalid',
      addProperty(
        `- type: olm.package.required\n  value:\n    packageName: kube-green\n    versionRange: '>=0.5.0 <<1'\n`,
      ),
      'versionRange ">=0.5.0 <<1" is not a valid range',
    ],
    [
      'dependency.package-unsatisfied',
      addProperty(
        `- type: olm.package.required\n  value:\n    packageName: cert-manager\n    versionRange: '>=1.0.0'\n`,
      ),
      'no bundle provides package "cert-manager" in range ">=1.0.0" in this catalog',
    ],
    [
      'dependency.gvk-unsatisfied',
      addProperty(
        `- type: olm.gvk.required\n  value:\n    group: cert-manager.io\n    kind: Certificate\n    version: v1\n`,
      ),
      'no bundle provides an API cert-manager.io/v1, Kind=Certificate',
    ],
    [
      'dependency.deprecated-only',
      (t) =>
        appendBlob(
          'schema: olm.deprecations\npackage: kube-green\nentries:\n- reference:\n    schema: olm.bundle\n    name: kube-green.v0.3.0\n  message: unsupported\n',
        )(
          addProperty(
            `- type: olm.package.required\n  value:\n    packageName: kube-green\n    versionRange: '<0.3.1'\n`,
          )(t),
        ),
      'is provided only by deprecated bundles (kube-green.v0.3.0)',
    ],
    [
      'constraint.invalid',
      addProperty(
        `- type: olm.constraint\n  value:\n    failureMessage: needs SleepInfo\n    gvkk:\n      group: kube-green.com\n`,
      ),
      'unknown field "gvkk"',
    ],
    [
      'constraint.cel-invalid',
      addProperty(
        `- type: olm.constraint\n  value:\n    cel:\n      rule: 'semver_compare(properties[0].value.version, "0.1.0")'\n`,
      ),
      'cel expressions must have type Bool (this one is int)',
    ],
    [
      'upgrade.stranded',
      (t) =>
        t
          .replace(
            '- name: kube-green.v0.3.0\n',
            '- name: kube-green.v0.3.0\n  skips:\n  - kube-green.v0.3.1\n',
          )
          .replace(
            '- name: kube-green.v0.3.1\n  replaces: kube-green.v0.3.0\n',
            '- name: kube-green.v0.3.1\n  replaces: kube-green.v0.3.0\n  skips:\n  - kube-green.v0.3.0\n',
          )
          .replace(
            '- name: kube-green.v0.4.0\n  replaces: kube-green.v0.3.1\n',
            '- name: kube-green.v0.4.0\n',
          ),
      'kube-green.v0.3.0, kube-green.v0.3.1 cannot upgrade to the head "kube-green.v0.7.1"',
    ],
    [
      'upgrade.downgrade-edge',
      (t) =>
        t
          .replace(
            '- name: kube-green.v0.3.0\n',
            '- name: kube-green.v0.3.0\n  replaces: kube-green.v0.3.1\n',
          )
          .replace(
            '- name: kube-green.v0.3.1\n  replaces: kube-green.v0.3.0\n',
            '- name: kube-green.v0.3.1\n',
          )
          .replace(
            'replaces: kube-green.v0.3.1\n- name: kube-green.v0.4.1',
            'replaces: kube-green.v0.3.0\n- name: kube-green.v0.4.1',
          ),
      'kube-green.v0.3.0 (0.3.0) replaces kube-green.v0.3.1, a higher version (0.3.1)',
    ],
    [
      'upgrade.skip-range-unmatched',
      (t) =>
        t.replace(
          `- name: ${HEAD}\n  replaces: kube-green.v0.7.0\n`,
          `- name: ${HEAD}\n  replaces: kube-green.v0.7.0\n  skipRange: '>=2.0.0 <2.1.0'\n`,
        ),
      'the skipRange ">=2.0.0 <2.1.0" of kube-green.v0.7.1 matches no other bundle of the package',
    ],
    [
      'upgrade.deprecated-head',
      appendBlob(
        `schema: olm.deprecations\npackage: kube-green\nentries:\n- reference:\n    schema: olm.bundle\n    name: ${HEAD}\n  message: broken\n`,
      ),
      'its head "kube-green.v0.7.1" is deprecated',
    ],
    [
      'upgrade.deprecated-default-channel',
      appendBlob(
        'schema: olm.deprecations\npackage: kube-green\nentries:\n- reference:\n    schema: olm.channel\n    name: alpha\n  message: moved to stable\n',
      ),
      'its default channel "alpha" is deprecated',
    ],
    [
      'metadata.icon-mediatype',
      (t) => t.replace('  mediatype: image/svg+xml\n', '  mediatype: image/png\n'),
      'the icon is declared "image/png" but holds image/svg+xml bytes',
    ],
    [
      'metadata.annotation-key',
      (t) => t.replace('    annotations:\n', "    annotations:\n      olm.skiprange: '<0.3.0'\n"),
      'CSV annotation "olm.skiprange" differs only by case from "olm.skipRange"',
    ],
    [
      'metadata.max-openshift-version',
      addProperty(`- type: olm.maxOpenShiftVersion\n  value: '4.x'\n`),
      '"4.x" is not a version: Invalid character(s) found in minor number "x"',
    ],
  ])('%s', async (rule, mutate, words) => {
    const r = await mutated(mutate);
    const hits = only(r.findings, rule);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]?.message).toContain(words);
    expect(hits[0]).toMatchObject({ file: FILE, package: PKG, severity: ruleInfo(rule).severity });
    expect(r.passed).toBe(ruleInfo(rule).severity !== 'error');
  });

  it('dependency.other-catalog: met only by a --with catalog (another corpus package)', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'opm-lint-other-'));
    temps.push(other);
    await cp(corpusPath('community-catalog-v4.21', 'infinispan'), path.join(other, 'infinispan'), {
      recursive: true,
    });
    const mutate = addProperty(
      `- type: olm.package.required\n  value:\n    packageName: infinispan\n    versionRange: '>=0.0.1'\n`,
    );
    const alone = await mutated(mutate);
    expect(only(alone.findings, 'dependency.package-unsatisfied')).toHaveLength(1);
    const r = await mutated(mutate, { with: [other] });
    expect(only(r.findings, 'dependency.package-unsatisfied')).toEqual([]);
    expect(only(r.findings, 'dependency.other-catalog')[0]?.message).toContain(
      'is provided only by another catalog (infinispan/',
    );
  });

  it('policies, once turned on', async () => {
    const on = (rule: RuleId): ValidateOptions => ({ severities: new Map([[rule, 'warning']]) });
    const tag = await mutated(
      (t) =>
        t.replace(
          /image: (\S+)@sha256:[0-9a-f]+\nname: kube-green\.v0\.7\.1/,
          'image: $1:v0.7.1\nname: kube-green.v0.7.1',
        ),
      on('policy.image-digest'),
    );
    // Only the bundle image was changed; its related images are referenced by tag upstream.
    const bundleImages = only(tag.findings, 'policy.image-digest')
      .map((f) => f.message)
      .filter((m) => m.startsWith('bundle image'));
    expect(bundleImages).toEqual([
      'bundle image "quay.io/community-operator-pipeline-prod/kube-green:v0.7.1" is not pinned by digest',
    ]);
    const noIcon = await mutated(
      (t) => t.replace(/icon:\n {2}base64data: \S+\n {2}mediatype: image\/svg\+xml\n/, ''),
      on('policy.package-icon'),
    );
    expect(only(noIcon.findings, 'policy.package-icon')).toHaveLength(1);
    // kube-green has no description: adding one clears the finding.
    const described = await mutated(
      (t) =>
        t.replace(
          'name: kube-green\nschema: olm.package\n',
          'description: Saves energy.\nname: kube-green\nschema: olm.package\n',
        ),
      on('policy.package-description'),
    );
    expect(only(described.findings, 'policy.package-description')).toEqual([]);
    const plain = await mutated(
      (t) =>
        t
          .replace('defaultChannel: alpha\n', 'defaultChannel: beta\n')
          .replace('name: alpha\npackage: kube-green', 'name: beta\npackage: kube-green'),
      {
        severities: new Map([
          ['policy.channel-name', 'error'],
          ['policy.package-description', 'warning'],
        ]),
        policies: { channelNames: ['alpha', 'stable'] },
      },
    );
    expect(only(plain.findings, 'policy.package-description')).toHaveLength(1);
    expect(only(plain.findings, 'policy.channel-name')[0]?.message).toBe(
      'channel name "beta" is not in the allowed list (alpha, stable)',
    );
    expect(plain.passed).toBe(false);
  });
});
