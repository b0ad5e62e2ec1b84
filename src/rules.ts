/**
 * Every rule `opm validate` reports, in one place: its stable id, default severity, whether opm
 * itself rejects a catalog that breaks it (such rules cannot be turned down by configuration), a
 * one-line description and help text. The registry feeds the SARIF rule metadata, the rules table
 * in README.md (a test keeps the two in step) and the severity configuration.
 */

export type Severity = 'error' | 'warning';
/** A severity as configuration states it: `off` drops the rule's findings. */
export type RuleLevel = Severity | 'off';

export interface RuleInfo {
  /** The severity findings of this rule have unless configured otherwise. */
  severity: RuleLevel;
  /**
   * True when opm rejects a catalog that breaks the rule (or fails to read it): the verdict must
   * stay opm's, so configuration cannot change the rule.
   */
  opm: boolean;
  /** What the rule checks, in one line. */
  description: string;
  /** How to fix a finding, in a sentence or two. */
  help: string;
}

const opmRule = (description: string, help: string): RuleInfo => ({
  severity: 'error',
  opm: true,
  description,
  help,
});
const ourRule = (severity: RuleLevel, description: string, help: string): RuleInfo => ({
  severity,
  opm: false,
  description,
  help,
});

/** The CRD upgrade safety rules, one per check (`crd.<check>`), all off by default. */
function crdRules() {
  const rule = (description: string, help: string): RuleInfo => ourRule('off', description, help);
  const bound = (what: string): string =>
    `An upgrade tightens ${what} of a CRD property (or adds one where there was none): existing objects may no longer validate, and OLM v1 refuses the upgrade.`;
  const loosen = 'Keep the old bound (or loosen it) in every version existing objects use.';
  return {
    'crd.bundle-unreadable': rule(
      'A bundle directory named by --bundle-dirs, or a bundle image pulled by --crd-from-images, cannot be read, so its CRDs are not checked.',
      'Fix the directory or its entry in the bundle directory map, or the image reference (and the registry settings).',
    ),
    'crd.crd-removal': rule(
      'An upgrade drops a CRD the old bundle shipped: OLM v1 deletes it, and every object of it, on the upgrade.',
      'Keep shipping the CRD (its versions may be served: false) until no cluster holds objects of it.',
    ),
    'crd.scope': rule(
      'An upgrade changes a CRD’s scope (Namespaced or Cluster): OLM v1 refuses it.',
      'Keep the scope; a new scope needs a new CRD.',
    ),
    'crd.stored-version-removal': rule(
      'An upgrade removes a CRD version objects are stored in: OLM v0 and v1 refuse it.',
      'Keep the version (served: false) until the stored objects are migrated and it is out of status.storedVersions.',
    ),
    'crd.served-version-removal': rule(
      'An upgrade removes a version the old CRD serves (OLM v0 requires served: false in an earlier upgrade).',
      'Set the version served: false in one release and remove it in a later one.',
    ),
    'crd.existing-field-removal': rule(
      'An upgrade removes a field from a CRD version that stays: OLM v1 refuses it.',
      'Keep the field (deprecate it in its description), or remove it only in a new version.',
    ),
    'crd.required': rule(
      'An upgrade makes a CRD field newly required: existing objects without it stop validating.',
      'Make the field optional with a default, or require it only in a new version.',
    ),
    'crd.enum': rule(
      'An upgrade removes allowed enum values, or adds an enum where there was none.',
      'Keep every value existing objects may hold; adding values is allowed.',
    ),
    'crd.type': rule(
      'An upgrade changes the type of a CRD field.',
      'Keep the type; use a new field or a new version for another type.',
    ),
    'crd.default': rule(
      'An upgrade adds, changes or removes the default of a CRD field.',
      'Keep the default as it was.',
    ),
    'crd.maximum': rule(bound('the maximum'), loosen),
    'crd.minimum': rule(bound('the minimum'), loosen),
    'crd.max-length': rule(bound('maxLength'), loosen),
    'crd.min-length': rule(bound('minLength'), loosen),
    'crd.max-items': rule(bound('maxItems'), loosen),
    'crd.min-items': rule(bound('minItems'), loosen),
    'crd.max-properties': rule(bound('maxProperties'), loosen),
    'crd.min-properties': rule(bound('minProperties'), loosen),
    'crd.pattern': rule(
      'An upgrade adds, changes or removes the pattern of a CRD field.',
      'Keep the pattern as it was.',
    ),
    'crd.nullable': rule(
      'An upgrade makes a CRD field nullable or no longer nullable.',
      'Keep nullable as it was.',
    ),
    'crd.unhandled': rule(
      'An upgrade changes a CRD field in a way OLM v1 has no check for (format, x-kubernetes-* markers, oneOf…): it refuses the upgrade.',
      'Keep the field as it was, or make the change in a new version.',
    ),
  } as const;
}

const RULES = {
  // Reading the catalog directory.
  'load.unreadable': opmRule(
    'A file or directory of the catalog cannot be read.',
    'Fix the permissions or remove the entry (or list it in .indexignore).',
  ),
  'load.symlink-dir': opmRule(
    'A symlink points at a directory, which opm does not follow.',
    'Replace the symlink by the directory itself, or list it in .indexignore.',
  ),
  'load.symlink-loop': opmRule(
    'A symlink loops back on itself.',
    'Remove the symlink or point it at a regular file.',
  ),
  'load.not-regular-file': opmRule(
    'An entry is a device, socket or pipe, not a regular file.',
    'Remove it from the catalog directory or list it in .indexignore.',
  ),

  // Parsing YAML and JSON.
  'parse.yaml': opmRule('A YAML file does not parse.', 'Fix the YAML syntax at the line given.'),
  'parse.json': opmRule('A JSON file does not parse.', 'Fix the JSON syntax at the line given.'),
  'parse.not-object': opmRule(
    'A document of a catalog file is not an object.',
    'Every document of a catalog file must be one FBC blob (a mapping with a schema field).',
  ),
  'parse.binary': opmRule(
    'A catalog file contains NUL bytes (a binary file).',
    'Remove the file from the catalog directory or list it in .indexignore.',
  ),
  'parse.encoding': opmRule(
    'A file is not valid UTF-8 (an error in YAML; in JSON each invalid byte is read as U+FFFD, a warning).',
    'Save the file as UTF-8.',
  ),
  'parse.duplicate-key': ourRule(
    'warning',
    'A key is written twice in one mapping (an error among the blob’s own keys, a warning when nested).',
    'Remove one of the keys; opm silently keeps the last value.',
  ),

  // Decoding blobs into FBC types.
  'decode.duplicate-key': opmRule(
    'A blob has keys that differ only in case (opm matches keys case-insensitively).',
    'Keep one spelling of the key.',
  ),
  'decode.meta-type': opmRule(
    'schema, package or name of a blob is not a string.',
    'Write these fields as strings.',
  ),
  'decode.schema-missing': opmRule('A blob has no schema field.', 'Add a schema field (e.g. olm.bundle).'),
  'decode.field-type': opmRule(
    'A field of a blob has the wrong type (or invalid base64).',
    'Give the field the type the FBC format defines; the message names the field path.',
  ),
  'decode.bundle-object': opmRule(
    'An olm.bundle.object property is not an object with base64 data.',
    'Write the property value as {data: <standard base64 of a manifest>}.',
  ),
  'decode.too-deep': opmRule(
    'A blob is nested too deeply to decode.',
    'Flatten the blob; no FBC blob needs that depth.',
  ),
  'decode.unknown-field': ourRule(
    'warning',
    'A field unknown to the blob type; opm drops it silently.',
    'Remove the field or fix its spelling.',
  ),

  // Blobs opm reads past.
  'blob.schema-misspelt': ourRule(
    'warning',
    'A blob’s schema is a near miss of olm.package, olm.channel, olm.bundle or olm.deprecations (a case difference or up to two edits), so opm ignores the blob.',
    'Spell the schema as the message suggests.',
  ),

  // JSON Schema checks (warnings: opm does not apply the CUE definitions).
  'schema.olm.package': ourRule(
    'warning',
    'An olm.package blob does not match its JSON Schema.',
    'Fix the field the message names; see schemas/olm.package.json.',
  ),
  'schema.olm.channel': ourRule(
    'warning',
    'An olm.channel blob does not match its JSON Schema.',
    'Fix the field the message names; see schemas/olm.channel.json.',
  ),
  'schema.olm.bundle': ourRule(
    'warning',
    'An olm.bundle blob (or one of its known properties) does not match its JSON Schema.',
    'Fix the field the message names; see schemas/olm.bundle.json.',
  ),
  'schema.olm.deprecations': ourRule(
    'warning',
    'An olm.deprecations blob does not match its JSON Schema.',
    'Fix the field the message names; see schemas/olm.deprecations.json.',
  ),
  'schema.meta': ourRule(
    'warning',
    'A blob of another schema does not have the fields every blob has.',
    'Give the blob a string schema, and package/name when set.',
  ),

  // Packages.
  'package.name-empty': opmRule('A package has no name.', 'Set name on the olm.package blob.'),
  'package.duplicate': opmRule('Two olm.package blobs have the same name.', 'Remove one of them.'),
  'package.name-invalid': opmRule(
    'A package name is not a DNS-1123 label.',
    'Use lower-case letters, digits and -, at most 63 characters.',
  ),
  'package.default-channel-unset': opmRule(
    'A package has no defaultChannel.',
    'Set defaultChannel to one of the package’s channels.',
  ),
  'package.default-channel-missing': opmRule(
    'The default channel of a package has no olm.channel blob.',
    'Add the channel or point defaultChannel at an existing one.',
  ),
  'package.no-channels': opmRule('A package has no channels.', 'Add an olm.channel blob for the package.'),
  'package.duplicate-versions': opmRule(
    'Several bundles of a package have the same version (and release).',
    'Give each bundle its own version, or remove the duplicate.',
  ),

  // Channels.
  'channel.unknown-package': opmRule(
    'A channel names a package that has no olm.package blob.',
    'Add the olm.package blob or fix the package name.',
  ),
  'channel.name-empty': opmRule('A channel has no name.', 'Set name on the olm.channel blob.'),
  'channel.duplicate': opmRule('A package has two channels of one name.', 'Merge or rename them.'),
  'channel.duplicate-entry': opmRule('A channel lists a bundle twice.', 'Remove one of the entries.'),
  'channel.entry-bundle-missing': opmRule(
    'A channel lists a bundle that has no olm.bundle blob.',
    'Add the bundle or remove the entry (and edges pointing at it).',
  ),
  'channel.empty': opmRule('A channel has no entries.', 'Add entries or remove the channel.'),
  'channel.no-head': opmRule(
    'Every bundle of a channel is replaced or skipped by another: no head.',
    'Break the loop so one bundle (the newest) is replaced by none.',
  ),
  'channel.multiple-heads': opmRule(
    'A channel has several bundles nothing replaces or skips.',
    'Link the older heads to the newest with replaces or skips.',
  ),
  'channel.cycle': opmRule('The replaces chain of a channel loops.', 'Remove the edge that closes the loop.'),
  'channel.stranded': opmRule(
    'Bundles of a channel are neither on the replaces chain from the head nor skipped.',
    'Make the chain reach them with replaces, or skip them from a newer bundle.',
  ),

  // Bundles.
  'bundle.package-empty': opmRule('A bundle names no package.', 'Set package on the olm.bundle blob.'),
  'bundle.unknown-package': opmRule(
    'A bundle names a package that has no olm.package blob.',
    'Add the olm.package blob or fix the package name.',
  ),
  'bundle.duplicate': opmRule('Two bundles of a package have the same name.', 'Remove or rename one.'),
  'bundle.property-invalid': opmRule(
    'A known property of a bundle has a malformed value.',
    'Fix the property value as the message says.',
  ),
  'bundle.package-property-count': opmRule(
    'A bundle does not have exactly one olm.package property.',
    'Give the bundle one olm.package property with its package name and version.',
  ),
  'bundle.package-property-mismatch': opmRule(
    'The olm.package property names another package than the bundle.',
    'Make the property’s packageName the bundle’s package.',
  ),
  'bundle.image-invalid': opmRule('A bundle image is not a valid pull spec.', 'Fix the image reference.'),
  'bundle.related-image-invalid': opmRule(
    'A related image is not a valid pull spec.',
    'Fix the image reference.',
  ),
  'bundle.version-invalid': opmRule(
    'The version of a bundle is not semantic version 2.0.0.',
    'Write the version as MAJOR.MINOR.PATCH[-pre][+build].',
  ),
  'bundle.release-invalid': opmRule(
    'The release of a bundle is malformed.',
    'Write the release as dot-separated identifiers.',
  ),
  'bundle.not-in-channel': opmRule(
    'A bundle is listed by no channel of its package.',
    'Add an entry for it to a channel, or remove the bundle.',
  ),
  'bundle.name-empty': opmRule('A bundle has no name.', 'Set name on the olm.bundle blob.'),
  'bundle.name-not-normalized': opmRule(
    'A bundle with a release is not named <package>-v<version>-<release>.',
    'Rename the bundle (and the channel entries naming it).',
  ),
  'bundle.skip-empty': opmRule('A channel entry skips an empty name.', 'Remove the empty skips item.'),
  'bundle.skip-range-invalid': opmRule(
    'A skipRange is not a valid semver range.',
    'Write the range as OLM reads it, e.g. ">=1.0.0 <1.2.0".',
  ),
  'bundle.image-unset': opmRule(
    'A bundle has neither an image nor olm.bundle.object properties.',
    'Set image, or render the bundle with its manifests.',
  ),
  'bundle.build-metadata-with-release': opmRule(
    'A bundle has both build metadata in its version and a release.',
    'Drop the build metadata or the release.',
  ),

  // Deprecations.
  'deprecation.package-empty': opmRule('A deprecation names no package.', 'Set package.'),
  'deprecation.unknown-package': opmRule(
    'A deprecation names a package that does not exist.',
    'Fix the package name or remove the blob.',
  ),
  'deprecation.duplicate-package': opmRule(
    'A package has more than one olm.deprecations blob.',
    'Merge the entries into one blob.',
  ),
  'deprecation.schema-empty': opmRule(
    'A deprecation entry has no reference schema.',
    'Set reference.schema.',
  ),
  'deprecation.duplicate-entry': opmRule('A deprecation entry is listed twice.', 'Remove one of them.'),
  'deprecation.unknown-bundle': opmRule(
    'A deprecation entry names a bundle that does not exist.',
    'Fix the bundle name or remove the entry.',
  ),
  'deprecation.unknown-channel': opmRule(
    'A deprecation entry names a channel that does not exist.',
    'Fix the channel name or remove the entry.',
  ),
  'deprecation.package-name-set': opmRule(
    'A package deprecation entry carries a name.',
    'Leave reference.name empty for olm.package entries.',
  ),
  'deprecation.unknown-schema': opmRule(
    'A deprecation entry references a schema other than olm.package, olm.channel or olm.bundle.',
    'Use one of those three schemas.',
  ),
  'deprecation.message-empty': opmRule('A deprecation entry has no message.', 'Write a message for users.'),

  // Beyond opm: what OLM checks later, when it resolves or installs.
  'dependency.range-invalid': ourRule(
    'warning',
    'A versionRange of olm.package.required or of an olm.constraint package is not a range OLM can parse.',
    'Write the range as blang/semver reads it, e.g. ">=1.0.0 <2.0.0"; comparators are =, !=, >, >=, <, <=.',
  ),
  'dependency.package-unsatisfied': ourRule(
    'warning',
    'No bundle of the required package, in the required version range, is in the catalog (or a --with catalog).',
    'Add a bundle that satisfies the requirement, widen the range, or name the catalog that has it with --with.',
  ),
  'dependency.gvk-unsatisfied': ourRule(
    'warning',
    'No bundle in the catalog (or a --with catalog) provides a required group/version/kind.',
    'Add the operator that provides the API, or name the catalog that has it with --with.',
  ),
  'dependency.deprecated-only': ourRule(
    'warning',
    'A dependency is satisfied only by deprecated bundles (or bundles of deprecated packages).',
    'Point the dependency at a maintained bundle, or un-deprecate the one it needs.',
  ),
  'dependency.other-catalog': ourRule(
    'warning',
    'A dependency is satisfied only by a catalog named with --with, not by this catalog.',
    'Make sure the other catalog is installed on the clusters that install this one.',
  ),
  'constraint.invalid': ourRule(
    'warning',
    'An olm.constraint value OLM cannot parse: unknown keys, values of the wrong type, or more than 128 KiB.',
    'Write the value with the keys OLM knows: failureMessage and one of gvk, package, cel, all, any, not.',
  ),
  'constraint.cel-invalid': ourRule(
    'warning',
    'A cel constraint rule does not compile in OLM’s CEL environment (the properties variable and semver_compare).',
    'Fix the expression; it must be boolean, e.g. properties.exists(p, p.type == "certified").',
  ),
  'upgrade.stranded': ourRule(
    'warning',
    'An installed bundle can never upgrade to the channel head: no path through replaces, skips and skipRange leads there.',
    'Add a replaces, skips or skipRange edge from a newer bundle on the path to the head.',
  ),
  'upgrade.downgrade-edge': ourRule(
    'warning',
    'A replaces or skips edge points at a higher version: OLM would upgrade to an older bundle.',
    'Point the edge at an older bundle, or fix the versions.',
  ),
  'upgrade.skip-range-unmatched': ourRule(
    'warning',
    'A skipRange matches no other bundle of the package.',
    'Fix the range so it covers the bundles it is meant to skip, or drop it.',
  ),
  'upgrade.deprecated-head': ourRule(
    'warning',
    'The head of a channel (what new installs get) is deprecated.',
    'Publish a newer bundle at the head, or deprecate the channel instead.',
  ),
  'upgrade.deprecated-default-channel': ourRule(
    'warning',
    'The default channel of a package is deprecated: default installs land on a deprecated channel.',
    'Make another channel the default.',
  ),
  // CRD upgrade safety along upgrade edges (src/lint/crd-upgrade.ts): off unless asked for, e.g.
  // with --crd-upgrade-safety. Named after the checks of OLM v1's preflight.
  ...crdRules(),
  'metadata.icon-mediatype': ourRule(
    'warning',
    'The bytes of a package icon are not of the declared mediatype (e.g. an SVG labelled image/png).',
    'Set mediatype to what the icon is (the message says), or replace the icon.',
  ),
  'metadata.annotation-key': ourRule(
    'warning',
    'A CSV annotation key differs from a key OLM reads only by case or a small misspelling, so OLM ignores it.',
    'Spell the key exactly as OLM does (the message names it).',
  ),
  'metadata.max-openshift-version': ourRule(
    'warning',
    'An olm.maxOpenShiftVersion value OpenShift cannot read as a version; OLM then refuses to install the bundle.',
    'Write it as "4.18": a string of major and minor version.',
  ),
  'policy.image-digest': ourRule(
    'off',
    'A bundle image or related image is referenced by tag, not pinned by digest.',
    'Reference images as name@sha256:<digest>.',
  ),
  'policy.package-description': ourRule(
    'off',
    'A package has no description.',
    'Set description on the olm.package blob.',
  ),
  'policy.package-icon': ourRule('off', 'A package has no icon.', 'Set icon on the olm.package blob.'),
  'policy.channel-name': ourRule(
    'off',
    'A channel name is not in the configured list (policies.channelNames).',
    'Rename the channel, or add the name to the list in the configuration file.',
  ),
} as const satisfies Record<string, RuleInfo>;

/** The id of a rule: a stable string such as `channel.multiple-heads`. */
export type RuleId = keyof typeof RULES;

/** Every rule id, in byte order. */
export const RULE_IDS: readonly RuleId[] = (Object.keys(RULES) as RuleId[]).sort((a, b) =>
  a < b ? -1 : a > b ? 1 : 0,
);

/** Whether `s` is the id of a validate rule (RULE_IDS lists them). */
export function isRuleId(s: string): s is RuleId {
  return Object.prototype.hasOwnProperty.call(RULES, s);
}

/** A rule's default severity, whether opm enforces it, its description and its help. */
export function ruleInfo(id: RuleId): RuleInfo {
  return RULES[id];
}

/** The anchor of a rule's row in the rules table of README.md. */
export function ruleAnchor(id: RuleId): string {
  return `rule-${id.replace(/[^a-z0-9-]/g, '-')}`;
}

/** Where a rule is documented (the rules table in the README, as the npm registry shows it). */
export function ruleHelpUri(id: RuleId): string {
  return `https://www.npmjs.com/package/opm-ts#${ruleAnchor(id)}`;
}
