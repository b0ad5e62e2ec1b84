import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ErrorObject } from 'ajv';
import type * as AjvModule from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { RULE_IDS, ruleAnchor, ruleInfo } from '../../src/rules.js';
import { projectRoot } from '../corpus.js';
import { runOpm } from '../run-cli.js';

const fixtures = path.resolve(import.meta.dirname, '../../testdata/validate');
const temps: string[] = [];
afterAll(async () => {
  for (const t of temps) await rm(t, { recursive: true, force: true });
});

/** A copy of a fixture's catalog in a temp dir (so configuration files can be put around it). */
async function copyFixture(name: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'opm-lint-'));
  temps.push(dir);
  await cp(path.join(fixtures, name, 'catalog'), path.join(dir, 'repo', 'catalogs', 'main'), {
    recursive: true,
  });
  return dir;
}

/** The SARIF 2.1.0 JSON Schema as shipped by @microsoft/jest-sarif (draft-04). */
async function sarifValidator(): Promise<(doc: unknown) => string[]> {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');
  const schema: unknown = JSON.parse(await readFile(file, 'utf8'));
  // Both are CommonJS: their classes are the `default` of what require returns.
  const Ajv = (require('ajv-draft-04') as { default: new (o: AjvModule.Options) => AjvModule.Ajv }).default;
  const addFormats = (require('ajv-formats') as { default: (ajv: AjvModule.Ajv) => unknown }).default;
  // The schema's patterns are ECMAScript regular expressions, not all valid with the `u` flag.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(schema as object);
  return (doc) =>
    validate(doc)
      ? []
      : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message ?? ''}`);
}

describe('validate: severities', () => {
  it('--strict fails on warnings alone; --rule turns a rule off or into an error', async () => {
    const dir = path.join(fixtures, 'lint-upgrade-downgrade-edge/catalog');
    expect((await runOpm(['validate', dir])).code).toBe(0);
    const strict = await runOpm(['validate', dir, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('warning: channel "stable": foo.v0.2.0 (0.2.0) replaces foo.v0.3.0');
    expect(strict.stderr).toContain('[upgrade.downgrade-edge]');
    const off = await runOpm(['validate', dir, '--strict', '--rule', 'upgrade.downgrade-edge=off']);
    expect(off).toEqual({ code: 0, stdout: '', stderr: '' });
    const err = await runOpm(['validate', dir, '--rule=upgrade.downgrade-edge=error', '-o', 'json']);
    expect(err.code).toBe(1);
    expect(JSON.parse(err.stdout)).toMatchObject({
      passed: false,
      counts: { errors: 1, warnings: 0 },
      findings: [{ rule: 'upgrade.downgrade-edge', severity: 'error' }],
    });
  });

  it('refuses to configure opm rules, unknown rules and unknown severities (exit 2)', async () => {
    const dir = path.join(fixtures, 'valid/catalog');
    const opm = await runOpm(['validate', dir, '--rule', 'channel.cycle=off']);
    expect(opm.code).toBe(2);
    expect(opm.stderr).toContain('rule channel.cycle is one opm enforces; its severity cannot be changed');
    const unknown = await runOpm(['validate', dir, '--rule', 'no.such-rule=off']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown rule "no.such-rule"');
    const level = await runOpm(['validate', dir, '--rule', 'policy.package-icon=fatal']);
    expect(level.code).toBe(2);
    expect(level.stderr).toContain('severity "fatal" is not one of error, warning, off');
  });

  it('reads .opm-validate.yaml found upward from the catalog; flags override it', async () => {
    const root = await copyFixture('lint-policy-channel-name');
    const catalog = path.join(root, 'repo', 'catalogs', 'main');
    // Off by default: the catalog passes.
    expect((await runOpm(['validate', catalog])).code).toBe(0);
    await writeFile(
      path.join(root, 'repo', '.opm-validate.yaml'),
      'rules:\n  policy.channel-name: error\n  policy.package-icon: warning\npolicies:\n  channelNames: [stable, "candidate-*"]\n',
    );
    const r = await runOpm(['validate', catalog, '-o', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { findings: { rule: string; severity: string }[] };
    expect(doc.findings.map((f) => `${f.rule}:${f.severity}`)).toEqual([
      'policy.package-icon:warning',
      'policy.channel-name:error',
    ]);
    const flagged = await runOpm(['validate', catalog, '--rule', 'policy.channel-name=warning']);
    expect(flagged.code).toBe(0);
    // Turned on without a list of names, the rule would check nothing: that is refused.
    const bare = await runOpm([
      'validate',
      path.join(fixtures, 'valid/catalog'),
      '--rule',
      'policy.channel-name=error',
    ]);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toBe(
      'error: policy.channel-name is turned on but no channel names are allowed: set policies.channelNames in a .opm-validate.yaml beside or above the catalog\n',
    );
  });

  it('names the file and line of a bad configuration', async () => {
    const root = await copyFixture('valid');
    const catalog = path.join(root, 'repo', 'catalogs', 'main');
    const file = path.join(root, 'repo', 'catalogs', '.opm-validate.yaml');
    await writeFile(file, 'rules:\n  upgrade.stranded: warning\n  bundle.image-unset: off\n');
    const r = await runOpm(['validate', catalog]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ${file}:3: rule bundle.image-unset is one opm enforces; its severity cannot be changed\n`,
    );
    await writeFile(file, 'rule:\n  upgrade.stranded: warning\n');
    expect((await runOpm(['validate', catalog])).stderr).toBe(
      `error: ${file}:1: unknown key "rule" (known: rules, policies)\n`,
    );
    // --config names the file explicitly.
    const other = path.join(root, 'strict.yaml');
    await writeFile(other, 'rules:\n  policy.package-description: error\n');
    const explicit = await runOpm(['validate', catalog, '--config', other]);
    expect(explicit.code).toBe(1);
    expect(explicit.stderr).toContain('[policy.package-description]');
  });
});

describe('validate --with', () => {
  it('resolves dependencies against other catalog directories, read as render reads them', async () => {
    const dir = path.join(fixtures, 'lint-dependency-other-catalog');
    const alone = await runOpm(['validate', 'catalog', '-o', 'json'], { cwd: dir });
    expect(JSON.parse(alone.stdout)).toMatchObject({
      findings: [{ rule: 'dependency.package-unsatisfied' }],
    });
    const both = await runOpm(['validate', 'catalog', '--with', 'other', '-o', 'json'], { cwd: dir });
    expect(JSON.parse(both.stdout)).toMatchObject({ findings: [{ rule: 'dependency.other-catalog' }] });
    // A local path (so nothing is pulled) that does not exist: one line naming the reference.
    const missing = await runOpm(['validate', 'catalog', '--with', './nowhere'], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: render reference "\.\/nowhere": cannot read "\.\/nowhere": /);
    expect(missing.stderr.split('\n')).toHaveLength(2);
  });
});

describe('validate -o sarif', () => {
  it('writes SARIF 2.1.0 that the official schema accepts, with rule metadata and repository paths', async () => {
    const validate = await sarifValidator();
    const root = projectRoot();
    const r = await runOpm(
      ['validate', 'testdata/validate/lint-metadata-annotation-key/catalog', '-o', 'sarif'],
      {
        cwd: root,
      },
    );
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      runs: {
        tool: { driver: { rules: { id: string; helpUri: string; help: { text: string } }[] } };
        results: {
          ruleId: string;
          level: string;
          locations: {
            physicalLocation: {
              artifactLocation: { uri: string; uriBaseId: string };
              region: { startLine: number };
            };
          }[];
        }[];
      }[];
    };
    expect(validate(doc)).toEqual([]);
    // The schema is really applied: a wrong version is refused.
    expect(validate({ ...doc, version: '2.0.0' })).not.toEqual([]);
    const run = doc.runs[0];
    expect(run?.tool.driver.rules.map((x) => x.id)).toEqual(RULE_IDS);
    const rule = run?.tool.driver.rules.find((x) => x.id === 'metadata.annotation-key');
    expect(rule?.help.text).toBe(ruleInfo('metadata.annotation-key').help);
    expect(rule?.helpUri).toBe(
      `https://www.npmjs.com/package/opm-ts#${ruleAnchor('metadata.annotation-key')}`,
    );
    expect(run?.results).toHaveLength(3);
    expect(run?.results[0]).toMatchObject({
      ruleId: 'metadata.annotation-key',
      level: 'warning',
      locations: [
        {
          physicalLocation: {
            artifactLocation: {
              uri: 'testdata/validate/lint-metadata-annotation-key/catalog/foo/catalog.yaml',
              uriBaseId: '%SRCROOT%',
            },
            region: { startLine: 13 },
          },
        },
      ],
    });
  });

  it('validates for errors, findings without a line and a catalog outside any repository', async () => {
    const validate = await sarifValidator();
    const dir = await mkdtemp(path.join(tmpdir(), 'opm-sarif-'));
    temps.push(dir);
    await mkdir(path.join(dir, 'c'));
    await writeFile(path.join(dir, 'c', 'bad.yaml'), 'schema: olm.package\nname: [\n');
    const r = await runOpm(['validate', 'c', '-o', 'sarif'], { cwd: dir });
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout) as { runs: { results: unknown[] }[] };
    expect(validate(doc)).toEqual([]);
    expect(doc.runs[0]?.results[0]).toMatchObject({
      ruleId: 'parse.yaml',
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'c/bad.yaml', uriBaseId: '%SRCROOT%' } } }],
    });
  });
});

describe('validate -o github', () => {
  it('annotates paths relative to GITHUB_WORKSPACE, says a summary line and appends a job summary', async () => {
    const root = projectRoot();
    const ws = await mkdtemp(path.join(tmpdir(), 'opm-gh-'));
    temps.push(ws);
    const summary = path.join(ws, 'summary.md');
    await writeFile(summary, '# earlier step\n');
    const r = await runOpm(
      [
        'validate',
        path.join(fixtures, 'lint-dependency-range-invalid/catalog'),
        '--rule',
        'dependency.range-invalid=error',
        '-o',
        'github',
      ],
      {
        cwd: ws,
        env: { GITHUB_WORKSPACE: root, GITHUB_STEP_SUMMARY: summary },
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      '::error file=testdata/validate/lint-dependency-range-invalid/catalog/foo/catalog.yaml,line=23,title=dependency.range-invalid::foo/foo.v0.2.0: properties[1] olm.package.required: versionRange ">=1.0.0 <<2" is not a valid range: Could not parse Range "<<2": Could not parse comparator "<<" in "<<2"\n',
    );
    expect(r.stderr).toMatch(
      /^opm validate .*lint-dependency-range-invalid\/catalog: failed, 1 error, 0 warnings\n$/,
    );
    const md = await readFile(summary, 'utf8');
    expect(md.startsWith('# earlier step\n### ❌ opm validate `')).toBe(true);
    expect(md).toContain('1 error, 0 warnings.');
    expect(md).toContain(
      '| error | [`dependency.range-invalid`](https://www.npmjs.com/package/opm-ts#rule-dependency-range-invalid) | testdata/validate/lint-dependency-range-invalid/catalog/foo/catalog.yaml:23 |',
    );
  });
});

describe('documentation', () => {
  it('the README lists every rule with its anchor and default severity', async () => {
    const readme = await readFile(path.join(projectRoot(), 'README.md'), 'utf8');
    for (const id of RULE_IDS) {
      const info = ruleInfo(id);
      const row = readme.split('\n').find((l) => l.includes(`<a id="${ruleAnchor(id)}"></a>`));
      expect(row, id).toBeDefined();
      expect(row).toContain(`\`${id}\``);
      expect(row).toContain(`| ${info.severity} |`);
      expect(row).toContain(info.description);
      expect(row).toContain(info.help);
    }
  });
});
