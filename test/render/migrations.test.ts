import { describe, expect, it } from 'vitest';
import { MIGRATION_LEVELS, migrationLevelHelp } from '../../src/migrations/levels.js';
import { migrationsUpTo, csvMetadata, runMigrations } from '../../src/migrations/migrations.js';
import { emptyConfig, type Bundle } from '../../src/declcfg/types.js';
import { RawJson } from '../../src/go/raw-json.js';
import { runOpm } from '../run-cli.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

describe('migration levels', () => {
  it('runs every migration up to and including the level', () => {
    expect(migrationsUpTo('').map((m) => m.token)).toEqual([]);
    expect(migrationsUpTo('none').map((m) => m.token)).toEqual(['none']);
    expect(migrationsUpTo('bundle-object-to-csv-metadata').map((m) => m.token)).toEqual([
      'none',
      'bundle-object-to-csv-metadata',
    ]);
    expect(migrationsUpTo('all').map((m) => m.token)).toEqual(MIGRATION_LEVELS.map((m) => m.token));
  });

  it('refuses an unknown level', () => {
    expect(() => migrationsUpTo('x')).toThrow('unknown migration level "x"');
  });

  it.each([
    ['render', '--migrate-level', 'bogus', 'testdata/examples/catalog'],
    ['migrate', '--migrate-level=bogus', 'testdata/examples/catalog', 'out'],
    ['alpha', 'render-template', '--migrate-level', 'bogus', 'basic', 'template.yaml'],
  ])('a level that does not exist is a usage error listing the levels: %j', async (...args) => {
    const r = await runOpm(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: unknown migration level "bogus" (valid levels: none, bundle-object-to-csv-metadata, all)\n',
    );
  });

  it('lists the levels in the flag help, aligned', () => {
    expect(migrationLevelHelp()).toBe(
      [
        'Name of the last migration to run (default: none)',
        '',
        'The migrator will run all migrations up to and including the selected level.',
        '',
        'Available migrators:',
        '  - none                          : do nothing',
        '  - bundle-object-to-csv-metadata : migrates bundles\' "olm.bundle.object" to "olm.csv.metadata"',
      ].join('\n'),
    );
  });
});

describe('bundle-object-to-csv-metadata', () => {
  const csv = {
    apiVersion: 'operators.coreos.com/v1alpha1',
    kind: 'ClusterServiceVersion',
    metadata: { name: 'x.v1', annotations: { b: '2', a: '1<&>' }, labels: { l: 'v' } },
    spec: {
      version: '1.0.0',
      displayName: 'X <Operator>',
      description: 'd',
      keywords: ['k1'],
      maturity: 'alpha',
      minKubeVersion: '1.20.0',
      provider: { name: 'P' },
      links: [{ name: 'docs', url: 'https://x' }],
      maintainers: [{ email: 'a@b' }],
      installModes: [{ supported: true, type: 'OwnNamespace' }, { type: 'AllNamespaces' }],
      nativeAPIs: [{ kind: 'Pod', version: 'v1', group: '' }],
      icon: [{ base64data: 'AAAA', mediatype: 'image/png' }],
      customresourcedefinitions: {
        owned: [
          {
            kind: 'Widget',
            name: 'widgets.example.com',
            version: 'v1',
            resources: [{ version: 'v1', kind: 'Deployment', name: '' }],
            specDescriptors: [{ path: 'size', 'x-descriptors': ['urn:a'], value: { b: 1, a: '<' } }],
          },
        ],
      },
      apiservicedefinitions: {
        owned: [
          { name: 'n', group: 'g', version: 'v', kind: 'K', containerPort: 443, deploymentName: 'dep' },
        ],
      },
    },
  };

  it('builds the metadata with opm field order and omissions', () => {
    expect(csvMetadata(csv).text).toBe(
      '{"annotations":{"a":"1<&>","b":"2"},' +
        '"apiServiceDefinitions":{"owned":[{"name":"n","group":"g","version":"v","kind":"K","deploymentName":"dep","containerPort":443}]},' +
        '"crdDescriptions":{"owned":[{"name":"widgets.example.com","version":"v1","kind":"Widget","resources":[{"name":"","kind":"Deployment","version":"v1"}],' +
        '"specDescriptors":[{"path":"size","x-descriptors":["urn:a"],"value":{"a":"\\u003c","b":1}}]}]},' +
        '"description":"d","displayName":"X <Operator>",' +
        '"installModes":[{"type":"OwnNamespace","supported":true},{"type":"AllNamespaces","supported":false}],' +
        '"keywords":["k1"],"labels":{"l":"v"},"links":[{"name":"docs","url":"https://x"}],"maintainers":[{"email":"a@b"}],' +
        '"maturity":"alpha","minKubeVersion":"1.20.0","nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],"provider":{"name":"P"}}',
    );
  });

  it('keeps empty structs and drops everything else that is empty', () => {
    expect(csvMetadata({ kind: 'ClusterServiceVersion' }).text).toBe(
      '{"apiServiceDefinitions":{},"crdDescriptions":{},"provider":{}}',
    );
  });

  it('aborts on a field of the wrong type', () => {
    expect(() => csvMetadata({ spec: { displayName: 3 } })).toThrow(
      'json: cannot unmarshal number into Go struct field ClusterServiceVersionSpec.displayName of type string',
    );
  });

  function bundle(props: Bundle['properties'], image = 'quay.io/x:1'): Bundle {
    return { schema: 'olm.bundle', name: 'x.v1', package: 'x', image, properties: props };
  }

  it('replaces the bundle objects of FBC bundles (YAML or JSON payloads) and keeps other properties in order', () => {
    const cfg = emptyConfig();
    cfg.bundles.push(
      bundle([
        { type: 'olm.bundle.object', value: { data: b64('kind: ConfigMap\n') } },
        { type: 'olm.package', value: { packageName: 'x', version: '1.0.0' } },
        {
          type: 'olm.bundle.object',
          value: { data: b64('kind: ClusterServiceVersion\nspec:\n  displayName: X\n') },
        },
        { type: 'zz', value: new RawJson('{"a" : 1}') },
      ]),
      bundle([{ type: 'olm.package', value: { packageName: 'y', version: '1' } }]),
    );
    runMigrations(cfg, migrationsUpTo('all'));
    expect(cfg.bundles[0]?.properties?.map((p) => p.type)).toEqual(['olm.package', 'zz', 'olm.csv.metadata']);
    const md = cfg.bundles[0]?.properties?.[2]?.value;
    expect(md instanceof RawJson ? md.text : md).toBe(
      '{"apiServiceDefinitions":{},"crdDescriptions":{},"displayName":"X","provider":{}}',
    );
    expect(cfg.bundles[1]?.properties?.map((p) => p.type)).toEqual(['olm.package']);
  });

  it('leaves a bundle that already has olm.csv.metadata unchanged', () => {
    const cfg = emptyConfig();
    const props: Bundle['properties'] = [
      { type: 'olm.bundle.object', value: { data: b64('{"kind":"ClusterServiceVersion"}') } },
      { type: 'olm.csv.metadata', value: { displayName: 'kept' } },
    ];
    cfg.bundles.push(bundle(props));
    runMigrations(cfg, migrationsUpTo('all'));
    expect(cfg.bundles[0]?.properties).toEqual(props);
  });

  it('names the bundle when a payload does not decode', () => {
    const cfg = emptyConfig();
    cfg.bundles.push(bundle([{ type: 'olm.bundle.object', value: { data: b64('{"kind": ') } }]));
    expect(() => runMigrations(cfg, migrationsUpTo('all'))).toThrow(
      'package "x", bundle "x.v1": parse property at index 0 as bundle object:',
    );
  });
});
