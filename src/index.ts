/**
 * opm-ts as a library: the use cases behind each command, the FBC wire types, and the loaders and
 * writers they are built from. Nothing here prints or exits.
 */
export type * from './declcfg/types.js';
export type { JsonObject, JsonValue } from './go/json-value.js';
export type { Property } from './property/types.js';
export { emptyConfig, mergeConfigs } from './declcfg/types.js';
export { RawJson } from './go/raw-json.js';
export { loadCatalogDir, loadCatalogDirOrThrow, type LoadOptions, type LoadResult } from './declcfg/load.js';
export { toYaml, type WriteOptions, type DroppedBlob } from './declcfg/write.js';
export { writeJson, writeYaml, jsonChunks, yamlChunks, type WritableLike } from './declcfg/write-stream.js';
export { writeCatalogDir } from './declcfg/write-fs.js';
export { writeMermaid } from './graph/mermaid.js';
export {
  validateCatalog,
  type Severities,
  type ValidateOptions,
  type ValidateResult,
} from './action/validate/validate.js';
export { render, type RenderOptions } from './action/render/render.js';
export { migrate } from './action/migrate.js';
export { initPackage, type InitOptions } from './action/init.js';
export {
  generateDockerfile,
  planDockerfile,
  writeDockerfile,
  dockerfileText,
  type DockerfileOptions,
} from './action/generate-dockerfile/generate-dockerfile.js';
export { renderTemplate } from './action/render-template.js';
export { filter, filterToDir, type FilterOptions } from './action/filter.js';
export { diff, type DiffOptions } from './action/diff.js';
export {
  compose,
  readComposeCatalog,
  ComposeFailedError,
  type ComposeOptions,
  type ComposeResult,
  type ComposeDockerfileOptions,
  type ComposeImageOptions,
  type ComposedImage,
  type CatalogImageRegistry,
  type ReferenceSummary,
  type ReferenceFailure,
} from './action/compose.js';
export type { ComposeCatalog, ComposeReference } from './curate/compose-catalog.js';
export type { BundleDirMap } from './template/bundle-dirs.js';
export { listImages, type ListImagesOptions, type ListImagesResult } from './action/list-images.js';
export {
  generateBundle,
  type GenerateBundleOptions,
  type GeneratedBundle,
} from './action/alpha-bundle/generate.js';
export {
  buildBundle,
  type BuildBundleOptions,
  type BuiltBundle,
  type BundlePusher,
  type OutputSink,
} from './action/alpha-bundle/build.js';
export { unpackBundle, type UnpackBundleOptions, type UnpackedBundle } from './action/alpha-bundle/unpack.js';
export {
  validateBundleImage,
  type BundleImageVerdict,
  type ValidateBundleImageOptions,
} from './action/alpha-bundle/validate.js';
export {
  checkBundleContent,
  type BundleContent,
  type BundleContentOptions,
} from './authoring/content/bundle-content.js';
export type { BundleContentProblem, ContentProblem } from './authoring/content/problem.js';
export type { BundleAnnotations, BundleMediaType } from './authoring/annotations.js';
export type { BundleFormatOptions } from './authoring/bundle-format.js';
export { filterCatalog, type FilterResult } from './curate/filter.js';
export type { FilterSpec, PackageSelection } from './curate/filter-config.js';
export { diffCatalogs, isEmptyDiff, type CatalogDiff, type DiffCatalogsOptions } from './curate/diff.js';
export type { CrdEdgeProblem } from './curate/crd-edges.js';
export type { UpgradeImpact } from './curate/upgrade-impact.js';
export { catalogImages, type CatalogImage } from './curate/images.js';
export { convertToModel, convertToModelOrThrow } from './model/convert.js';
export { parseSemver, compareSemver, parseRange } from './model/semver.js';
import { createImageSource as createRegistryClient } from './oci/registry-client.js';
import type { ImageSource, ImageSourceOptions } from './oci/image-source.js';

/**
 * The registry client: pulls images as opm does (credentials from the usual files and helpers,
 * registries.conf mirrors, blobs cached by digest), for `render`, `filter`, `diff`, `listImages`
 * and `validateCatalog`'s `with`, or on its own with `pull(ref)`. Without `env`, the process's
 * environment is read, as the command line does.
 *
 * @example
 * const images = createImageSource({ platform: 'linux/arm64', log: (line) => console.error(line) });
 * const image = await images.pull('quay.io/example/catalog:latest');
 * try { console.log(image.digest, image.root); } finally { await image.release(); }
 */
export function createImageSource(options: ImageSourceOptions = {}): ImageSource {
  // This entry is the library's edge, as cli/ is the command line's: the one place below the
  // command line that reads the process, for the default a library caller expects.
  // A JavaScript caller may pass anything: what is not an object goes on to the client's check.
  const given: unknown = options;
  const withEnv =
    typeof given === 'object' && given !== null && options.env === undefined
      ? { ...options, env: process.env }
      : options;
  return createRegistryClient(withEnv);
}
export type {
  ImageSource,
  ImageSourceOptions,
  PulledImage,
  PullOptions,
  RegistryOptions,
} from './oci/image-source.js';
export { OpmError, UsageError, InternalError, type OpmErrorCode } from './errors.js';
export { sortFindings, type Finding, type Severity } from './findings.js';
export type { Counts } from './lint/github.js';
export {
  bundleUpgradeFindings,
  checkBundleUpgrade,
  readBundleRef,
  type BundleRefOptions,
} from './action/alpha-bundle/upgrade-from.js';
export {
  compareCrds,
  compareCrdSets,
  crdSetOf,
  problemLine,
  type Check as CrdUpgradeCheck,
  type CrdProblem,
  type CrdSet,
} from './crd-safety/index.js';
export {
  RULE_IDS,
  isRuleId,
  ruleInfo,
  ruleHelpUri,
  type RuleId,
  type RuleInfo,
  type RuleLevel,
} from './rules.js';
