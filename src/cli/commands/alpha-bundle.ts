import { Option, type Command } from 'commander';
import type { CliIO } from '../io.js';
import type {
  BuildFlags,
  ExtractFlags,
  GenerateFlags,
  UnpackFlags,
  ValidateFlags,
} from './alpha-bundle-run.js';

const IN_PACKAGE = '(Required if `directory` is not pointing to a bundle in the nested bundle format)';

/** generate's flags, which build has too. */
function generateFlags(cmd: Command, directoryHelp: string): Command {
  return cmd
    .requiredOption('-d, --directory <string>', directoryHelp)
    .option(
      '-p, --package <string>',
      `The name of the package that bundle image belongs to ${IN_PACKAGE}`,
      '',
    )
    .option('-c, --channels <string>', `The list of channels that bundle image belongs to ${IN_PACKAGE}`, '')
    .option('-e, --default <string>', 'The default channel for the bundle image', '')
    .option('-u, --output-dir <string>', 'Optional output directory for operator manifests', '')
    .option('--base-image <string>', 'Use a custom image pullspec as the base bundle image', 'scratch');
}

/** `opm alpha bundle`: generate, build, validate, unpack and extract. */
export function registerAlphaBundle(alpha: Command, io: CliIO): Command {
  const bundle = alpha
    .command('bundle')
    .description('Operator bundle commands: generate bundle metadata, build and unpack bundle images');

  generateFlags(
    bundle
      .command('generate')
      .description(
        'Generate operator bundle metadata (metadata/annotations.yaml) and bundle.Dockerfile; both are always overwritten',
      ),
    'The directory where bundle manifests for a specific version are located.',
  ).action(async (flags: GenerateFlags, cmd: Command) => {
    const { runBundleGenerate } = await import('./alpha-bundle-run.js');
    await runBundleGenerate(io, flags, cmd);
  });

  generateFlags(
    bundle
      .command('build')
      .description(
        'Generate operator bundle metadata if needed and build the bundle image with a container tool',
      ),
    'The directory where bundle manifests and metadata for a specific version are located (the manifests folder: <bundle>/manifests)',
  )
    .requiredOption('-t, --tag <string>', 'The image tag applied to the bundle image')
    .option(
      '-b, --image-builder <string>',
      'Tool used to manage container images. One of: [docker, podman, buildah], or none: build without a container engine (then --push or --oci-layout)',
      'docker',
    )
    .option('--push', 'With -b none: push the image to the -t tag (prints its digest)', false)
    .option(
      '--oci-layout <dir>',
      'With -b none: write the image as an OCI image layout into this new or empty folder',
    )
    .option(
      '-o, --overwrite',
      'To overwrite annotations.yaml locally if existed. By default, overwrite is set to `false`.',
      false,
    )
    .action(async (flags: BuildFlags, cmd: Command) => {
      const { runBundleBuild } = await import('./alpha-bundle-run.js');
      await runBundleBuild(io, flags, cmd);
    });

  bundle
    .command('unpack')
    .argument('<BUNDLE_NAME[:TAG|@DIGEST]>')
    .description('Unpacks the content of an operator bundle into a directory')
    .option('-d, --debug', 'enable debug log output', false)
    .addOption(
      new Option('-s, --skip-tls', 'use plain HTTP (deprecated: use --use-http)').default(false).hideHelp(),
    )
    .option('--skip-tls-verify', 'disable TLS verification', false)
    .option('--use-http', 'use plain HTTP', false)
    .option('-v, --skip-validation', 'disable bundle validation', false)
    .option(
      '-c, --root-ca <string>',
      'file path of a root CA to use when communicating with image registries',
      '',
    )
    .option('-o, --out <string>', 'directory in which to unpack operator bundle content', './')
    .action(async (ref: string, flags: UnpackFlags, cmd: Command) => {
      const { runBundleUnpack } = await import('./alpha-bundle-run.js');
      await runBundleUnpack(io, ref, flags, cmd);
    });

  bundle
    .command('validate')
    .description(
      'Validate a bundle image: its format (folders, annotations, dependencies) and content (kinds, CSV, CRDs, object metadata); deprecated in opm',
    )
    .requiredOption(
      '-t, --tag <string>',
      'The path of a registry to pull from, image name and its tag that present the bundle image (e.g. quay.io/test/test-operator:latest)',
    )
    .option(
      '-b, --image-builder <string>',
      'Tool used to pull and unpack bundle images. One of: [none, docker, podman]; none uses our registry client (and honours --use-http)',
      'docker',
    )
    .option(
      '-o, --optional-validators <string>',
      'Specifies optional validations to be run. One or more of: [operatorhub, bundle-objects]',
      '',
    )
    .option(
      '--upgrade-from <bundle>',
      'also check the CRD upgrade from this bundle (a bundle directory, or an image pulled with our registry client) to the one validated, as OLM v0 and v1 check it; an unsafe change fails',
    )
    .action(async (flags: ValidateFlags, cmd: Command) => {
      const { runBundleValidate } = await import('./alpha-bundle-run.js');
      await runBundleValidate(io, flags, cmd);
    });

  bundle
    .command('extract')
    .description(
      'Extracts the data in a bundle directory via ConfigMap (needs a Kubernetes cluster: not provided by opm-ts)',
    )
    .option('--debug', 'enable debug logging', false)
    .option('-k, --kubeconfig <string>', 'absolute path to kubeconfig file', '')
    .option('-m, --manifestsdir <string>', 'path to directory containing manifests', '/')
    .option('-c, --configmapname <string>', 'name of configmap to write bundle data', '')
    .option(
      '-n, --namespace <string>',
      'namespace to write configmap data',
      'openshift-operator-lifecycle-manager',
    )
    .option('-l, --datalimit <uint>', 'maximum limit in bytes for total bundle data', '1048576')
    .option('-z, --gzip', 'enable gzip compression of configmap data', false)
    .action(async (flags: ExtractFlags) => {
      const { runBundleExtract } = await import('./alpha-bundle-run.js');
      await runBundleExtract(io, flags);
    });
  return bundle;
}
