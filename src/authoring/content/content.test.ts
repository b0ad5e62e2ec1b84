import { describe, expect, it } from 'vitest';
import { problemText, csvProblem, problem } from './problem.js';
import { dns1035LabelErrors, dns1123SubdomainErrors, labelValueErrors, parseTolerant } from './names.js';
import { csvConversionError, csvProblems } from './csv-checks.js';
import { crdProblems } from './crd-checks.js';
import { objectMetadataError } from './object-checks.js';
import { dependencyProblems } from './dependency-checks.js';
import { operatorHubProblems } from './operatorhub-checks.js';
import { optionalValidatorSet } from './bundle-content.js';

const CSV = {
  apiVersion: 'operators.coreos.com/v1alpha1',
  kind: 'ClusterServiceVersion',
  metadata: { name: 'foo.v1.0.0', annotations: { 'alm-examples': '[]' } },
  spec: {
    displayName: 'Foo',
    version: '1.0.0',
    minKubeVersion: '1.20.0',
    installModes: [{ type: 'AllNamespaces', supported: true }],
    install: { strategy: 'deployment', spec: { deployments: [] } },
  },
};
const errors = (ps: ReturnType<typeof csvProblems>): string[] =>
  ps.filter((p) => p.level === 'Error').map(problemText);

describe('validator problem text', () => {
  it('reads as operator-framework/api prints its errors', () => {
    expect(problemText(problem('Error', 'required field missing', 'Spec.DisplayName', 'field'))).toBe(
      'Error: Field Spec.DisplayName, Value field: required field missing',
    );
    expect(problemText(csvProblem('Error', 'install modes not found', 'foo'))).toBe(
      'Error: Value : (foo) install modes not found',
    );
    expect(problemText(problem('Error', 'x', '', undefined))).toBe('Error: : x');
    expect(problemText(problem('Warning', '', '', undefined))).toBe('ErrMessageMissing');
  });
});

describe('Kubernetes names and blang versions', () => {
  it('names and label values', () => {
    expect(dns1123SubdomainErrors('a.b-c')).toEqual([]);
    expect(dns1123SubdomainErrors('A')[0]).toMatch(/^a lowercase RFC 1123 subdomain/);
    expect(dns1035LabelErrors('1abc')[0]).toMatch(/^a DNS-1035 label .*'my-name', {2}or 'abc-123', regex/);
    expect(labelValueErrors('x'.repeat(64))[0]).toBe('must be no more than 63 bytes');
  });
  it('ParseTolerant pads, trims zeros and keeps blang texts', () => {
    expect(parseTolerant('v1.2').minor).toBe(2n);
    expect(parseTolerant('01.02.03').patch).toBe(3n);
    expect(() => parseTolerant('one.two')).toThrow('Invalid character(s) found in major number "0one"');
    expect(() => parseTolerant('1-rc')).toThrow('Short version cannot contain PreRelease/Build meta data');
  });
});

describe('CSV checks', () => {
  it('a good CSV has no errors (warnings only)', () => {
    expect(errors(csvProblems(CSV))).toEqual([]);
  });
  it('required fields and install modes', () => {
    const bad = { ...CSV, spec: { ...CSV.spec, displayName: '', installModes: [] } };
    expect(errors(csvProblems(bad))).toEqual([
      'Error: Value : (foo.v1.0.0) install modes not found',
      'Error: Field Spec.DisplayName, Value field: required field missing',
    ]);
  });
  it('a version that does not convert stops the CSV checks', () => {
    expect(csvConversionError({ spec: { version: 1 } })).toBe(
      'json: cannot unmarshal number into Go value of type string',
    );
    expect(csvConversionError(CSV)).toBeUndefined();
  });
  it('examples of APIs the CSV does not own', () => {
    const c = {
      ...CSV,
      metadata: { ...CSV.metadata, annotations: { 'alm-examples': '[{"apiVersion":"a.io/v1","kind":"K"}]' } },
    };
    expect(errors(csvProblems(c))).toEqual([
      'Error: Value a.io/v1, Kind=K: example must have a provided API',
    ]);
  });
});

describe('CRD checks', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'ws.a.io' },
    spec: {
      group: 'a.io',
      scope: 'Namespaced',
      names: { plural: 'ws', kind: 'W' },
      versions: [{ name: 'v1', served: true, storage: true }],
    },
  };
  it('a good CRD passes', () => {
    expect(crdProblems(crd, false)).toEqual([]);
  });
  it('group without a dot, no storage version', () => {
    const bad = {
      ...crd,
      metadata: { name: 'ws.aio' },
      spec: { ...crd.spec, group: 'aio', versions: [{ name: 'v1', served: true, storage: false }] },
    };
    expect(crdProblems(bad, false).map(problemText)).toEqual([
      'Error: Field spec.group, Value aio: spec.group: Invalid value: "aio": should be a domain with at least one dot',
      'Error: Field spec.versions, Value [{v1 true false false <nil> <nil> <nil> [] []}]: spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version',
    ]);
  });
  it('v1beta1 defaults the scope and the versions from spec.version', () => {
    const beta = { ...crd, spec: { group: 'a.io', version: 'v1', names: { plural: 'ws', kind: 'W' } } };
    expect(crdProblems(beta, true)).toEqual([]);
  });
});

describe('object metadata, dependencies, OperatorHub, -o', () => {
  it('a namespace is refused, a name required', () => {
    expect(
      objectMetadataError({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' } }),
    ).toBeUndefined();
    expect(
      objectMetadataError({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'n' } }),
    ).toBe(
      'error validating object metadata: metadata.namespace: Forbidden: not allowed on this type. &{{ConfigMap v1} {c  n    0 0001-01-01 00:00:00 +0000 UTC <nil> <nil> map[] map[] [] [] []}}',
    );
  });
  it('each dependency type', () => {
    expect(dependencyProblems({ type: 'olm.gvk', value: { kind: 'K' } })).toEqual([
      'API Group is empty',
      'API Version is empty',
    ]);
    expect(
      dependencyProblems({ type: 'olm.package', value: { packageName: 'p', version: '>=1.0.0' } }),
    ).toEqual([]);
    expect(dependencyProblems({ type: 'olm.label', value: 'x' })).toEqual([
      "couldn't parse dependency of type olm.label",
    ]);
    expect(dependencyProblems({ type: 'olm.constraint', value: {} })).toEqual(['The CEL field is missing']);
    expect(
      dependencyProblems({ type: 'olm.constraint', value: { cel: { rule: 'x' } } }, () => 'bad rule'),
    ).toEqual(['Invalid CEL expression: bad rule']);
  });
  it('OperatorHub: provider, categories, icon', () => {
    const c = {
      ...CSV,
      metadata: { ...CSV.metadata, annotations: { categories: 'Storage,Nope' } },
      spec: { ...CSV.spec, provider: { name: 'p' }, icon: [{ base64data: 'x', mediatype: 'image/bmp' }] },
    };
    expect(
      operatorHubProblems(c)
        .filter((p) => p.level === 'Error')
        .map(problemText),
    ).toEqual([
      'Error: Value : (foo.v1.0.0) csv.Metadata.Annotations["categories"] value "Nope" is not in the set of standard categories',
      'Error: Value : (foo.v1.0.0) csv.Spec.Icon image/bmp does not have a valid mediatype',
    ]);
  });
  it('-o values split at commas and trimmed', () => {
    expect([...optionalValidatorSet(['operatorhub, bundle-objects'])]).toEqual([
      'operatorhub',
      'bundle-objects',
    ]);
  });
});
