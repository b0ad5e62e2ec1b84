/**
 * The layer rule of src/ (docs/architecture.md): a module imports only modules of the layers below
 * its own, folders on one layer do not import each other, nothing imports the command line (src/cli/)
 * or the library entry (src/index.ts), and no modules import each other in a circle.
 */
const path = require('node:path');

/** Lowest first. Each entry is a module of src/ (`errors.ts`) or a folder (`go/`). */
const LAYERS = [
  ['errors.ts', 'rules.ts'],
  ['go/'],
  ['findings.ts', 'util/', 'protobuf/', 'crd-safety/'],
  ['yaml/', 'api-contract/'],
  ['property/'],
  ['declcfg/'],
  ['schema/', 'model/'],
  ['bundle/', 'oci/', 'sqlite/', 'catalog-queries/'],
  ['template/', 'graph/', 'lint/', 'migrations/', 'served-catalog/', 'sqlite-serve/', 'authoring/', 'image/'],
  ['curate/', 'server/', 'serve-cache/'],
  ['action/'],
  ['cli/'],
  ['index.ts'],
];

const escapeRegExp = (s) => s.replace(/[.+]/g, '\\$&');
const paths = (entries) => (entries.length ? `^src/(${entries.map(escapeRegExp).join('|')})` : '^$');
const label = (entries) => entries.map((e) => e.replace(/\/$/, '')).join('+');
const NOT_TESTS = '\\.test\\.ts$';

const layerRules = LAYERS.map((layer, i) => ({
  name: `layer-${label(layer)}`,
  comment: `${layer.join(', ')} may import only ${LAYERS.slice(0, i).flat().join(', ') || 'nothing of src/'}`,
  severity: 'error',
  from: { path: paths(layer), pathNot: NOT_TESTS },
  to: { path: paths(LAYERS.slice(i + 1).flat()) },
}));

const siblingRules = LAYERS.filter((layer) => layer.length > 1).flatMap((layer) =>
  layer.map((entry) => ({
    name: `sibling-${label([entry])}`,
    comment: `${entry} does not import the other entries of its layer`,
    severity: 'error',
    from: { path: paths([entry]), pathNot: NOT_TESTS },
    to: { path: paths(layer.filter((other) => other !== entry)) },
  })),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'modules must not import each other in a circle',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...siblingRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they tie the layers together as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: path.join(__dirname, 'tsconfig.json') },
  },
};
