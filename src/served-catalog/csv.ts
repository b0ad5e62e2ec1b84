/**
 * The ClusterServiceVersion opm serves for a bundle that carries `olm.csv.metadata` instead of
 * its manifests (operator-registry `pkg/api/model_to_api.go`): the metadata's fields placed in a
 * v1alpha1 ClusterServiceVersion, with the stubs opm adds, encoded as Go's encoding/json encodes
 * that type (struct field order, omitempty per field, HTML-safe escaping).
 */
import {
  asArray,
  asBool,
  asObject,
  asString,
  asStringArray,
  asStringMap,
  field,
  type Obj,
} from '../go/json-decode.js';
import { marshal } from '../go/json-encode.js';
import {
  apiServiceDescriptions,
  appLink,
  asStructs,
  compact,
  crdDescriptions,
  nonEmpty,
  nonEmptyList,
  objects,
  sortedMap,
} from '../property/csv-types.js';
import type { Icon, RelatedImage } from '../declcfg/types.js';

export interface SynthesisInput {
  /** The bundle's name (the CSV's metadata.name). */
  name: string;
  /** The bundle's version as text (`spec.version`). */
  version: string;
  /** The value of the bundle's one `olm.csv.metadata` property. */
  metadata: unknown;
  /** The package's description, used when the metadata has none. */
  packageDescription: string;
  packageIcon: Icon | undefined;
  relatedImages: readonly RelatedImage[];
}

const M = 'CSVMetadata';

/** A CSV's JSON text made from `olm.csv.metadata`. Throws GoTypeError on a value Go cannot decode. */
export function synthesizeCsv(input: SynthesisInput): string {
  const meta: Obj = asObject(input.metadata, M, M);
  const apis = asObject(
    field(meta, 'apiServiceDefinitions'),
    `${M}.apiServiceDefinitions`,
    'APIServiceDefinitions',
  );
  const crds = asObject(field(meta, 'crdDescriptions'), `${M}.crdDescriptions`, 'CustomResourceDefinitions');
  const icon = input.packageIcon;
  const spec = compact({
    // The stub opm adds so that OLM's package server finds a strategy.
    install: { strategy: 'deployment', spec: { deployments: null } },
    version: input.version,
    maturity: nonEmpty(asString(field(meta, 'maturity'), `${M}.maturity`)),
    customresourcedefinitions: compact({
      owned: crdDescriptions(field(crds, 'owned'), `${M}.crdDescriptions.owned`),
      required: crdDescriptions(field(crds, 'required'), `${M}.crdDescriptions.required`),
    }),
    apiservicedefinitions: compact({
      owned: apiServiceDescriptions(field(apis, 'owned'), `${M}.apiServiceDefinitions.owned`),
      required: apiServiceDescriptions(field(apis, 'required'), `${M}.apiServiceDefinitions.required`),
    }),
    nativeAPIs: nonEmptyList(
      objects(field(meta, 'nativeAPIs'), `${M}.nativeAPIs`, 'GroupVersionKind').map((g) => ({
        group: asString(field(g, 'group'), `${M}.nativeAPIs.group`),
        version: asString(field(g, 'version'), `${M}.nativeAPIs.version`),
        kind: asString(field(g, 'kind'), `${M}.nativeAPIs.kind`),
      })),
    ),
    minKubeVersion: nonEmpty(asString(field(meta, 'minKubeVersion'), `${M}.minKubeVersion`)),
    displayName: asString(field(meta, 'displayName'), `${M}.displayName`),
    description: nonEmpty(
      asString(field(meta, 'description'), `${M}.description`) || input.packageDescription,
    ),
    keywords: nonEmptyList(asStringArray(field(meta, 'keywords'), `${M}.keywords`)),
    maintainers: nonEmptyList(
      objects(field(meta, 'maintainers'), `${M}.maintainers`, 'Maintainer').map((m) =>
        compact({
          name: nonEmpty(asString(field(m, 'name'), `${M}.maintainers.name`)),
          email: nonEmpty(asString(field(m, 'email'), `${M}.maintainers.email`)),
        }),
      ),
    ),
    provider: appLink(asObject(field(meta, 'provider'), `${M}.provider`, 'AppLink'), `${M}.provider`),
    links: nonEmptyList(
      objects(field(meta, 'links'), `${M}.links`, 'AppLink').map((l) => appLink(l, `${M}.links`)),
    ),
    icon:
      icon === undefined
        ? undefined
        : [
            {
              base64data: Buffer.from(icon.base64data, 'base64').toString('base64'),
              mediatype: icon.mediatype,
            },
          ],
    installModes: nonEmptyList(
      asArray(field(meta, 'installModes'), `${M}.installModes`, '[]InstallMode').map((v) => {
        const m = asObject(v, `${M}.installModes`, 'InstallMode');
        return {
          type: asString(field(m, 'type'), `${M}.installModes.type`),
          supported: asBool(field(m, 'supported'), `${M}.installModes.supported`),
        };
      }),
    ),
    cleanup: { enabled: false },
    relatedImages: nonEmptyList(input.relatedImages.map((r) => ({ name: r.name, image: r.image }))),
  });
  const csv = {
    kind: 'ClusterServiceVersion',
    apiVersion: 'operators.coreos.com/v1alpha1',
    metadata: compact({
      name: input.name,
      labels: sortedMap(asStringMap(field(meta, 'labels'), `${M}.labels`)),
      annotations: sortedMap(asStringMap(field(meta, 'annotations'), `${M}.annotations`)),
    }),
    spec,
    status: { cleanup: {} },
  };
  return marshal(asStructs(csv), true);
}
