import { constants as fsConstants } from 'node:fs';
import { link, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OpmError } from '../../errors.js';
import { messageUnderCatalog, underCatalog } from '../../findings.js';
import { isFileUnder } from '../../util/file-under.js';
import { errnoCode, errnoText } from '../../go/errno.js';
import { ownedFileName, releaseOwned, removeStale } from '../../util/owned-temp.js';
import { compareUtf8 } from '../../go/utf8.js';
import { validateCatalog } from '../validate/validate.js';
import { throwIfAborted } from '../../util/abort.js';
import { pathExists } from '../../util/path-exists.js';
import {
  expectObject,
  expectOptionalBoolean,
  expectOptionalString,
  expectString,
  expectStringArray,
} from '../../util/args.js';

export { DEFAULT_OPM_IMAGE } from './dockerfile-defaults.js';

export interface DockerfileOptions {
  /** The catalog directory (its base name becomes the `ADD` source). */
  fbcRootDir: string;
  baseImage: string;
  builderImage: string;
  /** Whether the builder image was named explicitly (not the default). */
  builderImageExplicit?: boolean;
  /**
   * Deprecated `--binary-image`: stands for the base image, and for the builder too when no builder
   * was named. As in opm, that substitution happens after the scratch check of the builder.
   */
  binaryImage?: string;
  /** `key=value` items; each may hold several comma-separated items, as opm's flag does. */
  extraLabels: string[];
  /**
   * Write the Dockerfile without validating the catalog first. By default the catalog is validated
   * (opm does not) and an invalid one is refused, so an image that cannot serve is caught before
   * its build.
   */
  skipValidate?: boolean;
  /** The environment OPM_THREADS is read from when validating; none by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Stops the validation and the write: no Dockerfile is left, and the promise rejects with the
   * signal's reason.
   */
  signal?: AbortSignal;
}

/**
 * Parse `key=value` label items (split at the first `=`); later duplicates win, as in opm. A quote,
 * a line break, or a trailing backslash would break the quoted `LABEL "key"="value"` line (opm
 * writes it anyway, or drops what follows a line break), so they are refused.
 */
export function parseExtraLabels(items: readonly string[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const value of items) {
    for (const item of splitCsv(value)) {
      const eq = item.indexOf('=');
      if (eq < 0) {
        throw new OpmError(`invalid label ${quoteLabel(item)}`, { hint: "labels take the form 'key=value'" });
      }
      const bad = /["\r\n]/.exec(item);
      if (bad !== null || item.endsWith('\\')) {
        const what =
          bad === null
            ? 'ends with a backslash'
            : bad[0] === '"'
              ? 'holds a double quote'
              : 'holds a line break';
        throw new OpmError(
          `invalid label ${quoteLabel(item)}: it ${what}, which would break the Dockerfile's LABEL line`,
          {
            hint: 'write the label without double quotes, line breaks or a trailing backslash',
          },
        );
      }
      labels.set(item.slice(0, eq), item.slice(eq + 1));
    }
  }
  return labels;
}

/** A label as typed, for messages: control characters escaped so the message stays one line. */
function quoteLabel(item: string): string {
  return JSON.stringify(item);
}

/**
 * One flag value as a CSV record, as opm's string-slice flags read them (Go's encoding/csv): commas
 * split, a field starting with a quote is quoted (`""` inside for a quote); a quote anywhere else is
 * an error, as there. A line break outside quotes ends Go's record, so opm drops the rest; here it
 * is kept in the item, to be refused with the label.
 */
function splitCsv(value: string): string[] {
  if (value === '') return [];
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (quoted) {
      if (ch === '"' && value[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
        const next = value[i + 1];
        if (next !== undefined && next !== ',')
          throw csvError(value, 'extraneous or missing " in quoted field');
      } else cur += ch;
    } else if (ch === '"' && cur === '' && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
    } else if (ch === '"') throw csvError(value, 'bare " in non-quoted field');
    else if (ch === ',') {
      out.push(cur);
      cur = '';
      wasQuoted = false;
    } else cur += ch;
  }
  if (quoted) throw csvError(value, 'extraneous or missing " in quoted field');
  out.push(cur);
  return out;
}

function csvError(value: string, why: string): OpmError {
  return new OpmError(`invalid argument ${quoteLabel(value)} for "-l, --extra-labels" flag: ${why}`, {
    hint: 'items are comma-separated key=value pairs; quote an item that holds a comma: "key=a,b"',
  });
}

/** The Dockerfile text opm writes for these settings (byte for byte). */
export function dockerfileText(
  dirBaseName: string,
  baseImage: string,
  builderImage: string,
  labels: Map<string, string>,
): string {
  const lines = [
    '# The builder image is expected to contain',
    '# /bin/opm (with serve subcommand)',
    `FROM ${builderImage} as builder`,
    '',
    '# Copy FBC root into image at /configs and pre-populate serve cache',
    `ADD ${dirBaseName} /configs`,
    'RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]',
    '',
    `FROM ${baseImage}`,
  ];
  if (baseImage === 'scratch') {
    lines.push(
      '# OLMv0 CatalogSources that use binary-less images must set:',
      '# spec:',
      '#   grpcPodConfig:',
      '#     extractContent:',
      '#       catalogDir: /configs',
      '#       cacheDir: /tmp/cache',
    );
  } else {
    lines.push(
      '# The base image is expected to contain',
      '# /bin/opm (with serve subcommand) and /bin/grpc_health_probe',
      '',
      '# Configure the entrypoint and command',
      'ENTRYPOINT ["/bin/opm"]',
      'CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]',
    );
  }
  lines.push(
    '',
    'COPY --from=builder /configs /configs',
    'COPY --from=builder /tmp/cache /tmp/cache',
    '',
    '# Set FBC-specific label for the location of the FBC root directory',
    '# in the image',
    'LABEL operators.operatorframework.io.index.configs.v1=/configs',
  );
  if (labels.size > 0) {
    lines.push('', '# Set other custom labels');
    const keys = [...labels.keys()].sort(compareUtf8);
    // Quoted verbatim, without escaping, as opm writes them.
    for (const k of keys) lines.push(`LABEL "${k}"="${labels.get(k) ?? ''}"`);
  }
  return lines.join('\n') + '\n';
}

/** Where opm writes the Dockerfile: beside the directory, named `<dir>.Dockerfile`. */
function dockerfilePath(fbcRootDir: string): string {
  const clean = path.normalize(fbcRootDir).replace(/(.)[\\/]+$/, '$1');
  return path.join(path.dirname(clean), `${path.basename(clean)}.Dockerfile`);
}

export interface DockerfilePlan {
  file: string;
  text: string;
}

/**
 * Check the settings and the directory and compute the Dockerfile, in opm's order of checks, then
 * validate the catalog (unless `skipValidate`). Nothing is written here, so a failing check never
 * leaves a file behind.
 */
export async function planDockerfile(opts: DockerfileOptions): Promise<DockerfilePlan> {
  expectObject(opts, 'generateDockerfile(options)');
  expectString(opts.fbcRootDir, 'generateDockerfile(options).fbcRootDir', 'the catalog directory');
  for (const key of ['baseImage', 'builderImage'] as const) {
    // Empty is opm's own error below, not a wrong argument.
    if (typeof opts[key] !== 'string') {
      throw new TypeError(
        `generateDockerfile(options).${key} must be a string (opm's default: quay.io/operator-framework/opm:latest)`,
      );
    }
  }
  expectOptionalString(opts.binaryImage, 'generateDockerfile(options).binaryImage');
  expectStringArray(
    opts.extraLabels,
    'generateDockerfile(options).extraLabels',
    "'key=value' items; [] for none",
  );
  expectOptionalBoolean(opts.skipValidate, 'generateDockerfile(options).skipValidate');
  if (opts.builderImage === 'scratch') {
    throw new OpmError('invalid builder image: "scratch"', {
      hint: 'the builder stage needs an image with /bin/opm',
    });
  }
  let { baseImage, builderImage } = opts;
  if (opts.binaryImage !== undefined) {
    baseImage = opts.binaryImage;
    if (opts.builderImageExplicit !== true) builderImage = opts.binaryImage;
  }
  const labels = parseExtraLabels(opts.extraLabels);
  const file = dockerfilePath(opts.fbcRootDir);
  if (await pathExists(file)) {
    throw new OpmError(`path "${file}": file already exists`, { hint: 'remove it or move it away first' });
  }
  const dir = path.normalize(opts.fbcRootDir);
  const st = await stat(dir).catch((err: unknown) => {
    throw new OpmError(`provided root path "${dir}": ${errnoText(err)}`);
  });
  if (!st.isDirectory()) throw new OpmError(`provided root path "${dir}" is not a directory`);
  if (baseImage === '') throw new OpmError('base image is unset');
  const base = path.basename(dir.replace(/(.)[\\/]+$/, '$1'));
  const text = dockerfileText(base, baseImage, builderImage, labels);
  if (opts.skipValidate !== true) await requireValidCatalog(opts.fbcRootDir, opts);
  throwIfAborted(opts.signal);
  return { file, text };
}

/** Refuse a catalog that does not validate, naming its first error and how many more there are. */
async function requireValidCatalog(dir: string, opts: DockerfileOptions): Promise<void> {
  const result = await validateCatalog(dir, {
    lint: false,
    ...(opts.env === undefined ? {} : { env: opts.env }),
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
  });
  const errors = result.findings.filter((f) => f.severity === 'error');
  const first = errors[0];
  if (first === undefined) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  // Positions under the directory as given, as the command's other messages have them.
  const message = messageUnderCatalog(first.message, dir, isFileUnder(path.resolve(dir)));
  throw new OpmError(`catalog "${dir}" is not valid: ${message}${more}`, {
    ...(first.file === undefined
      ? {}
      : {
          at: {
            file: underCatalog(dir, first.file),
            ...(first.line === undefined ? {} : { line: first.line }),
          },
        }),
    hint: `see 'opm validate ${dir}', or pass --skip-validate to write the Dockerfile anyway`,
  });
}

/** Plan (checks and validation included) and write the Dockerfile: `opm generate dockerfile`. */
export async function generateDockerfile(opts: DockerfileOptions): Promise<DockerfilePlan> {
  const plan = await planDockerfile(opts);
  await writeDockerfile(plan, opts.signal);
  return plan;
}

/**
 * Write the planned file: into a temporary sibling first, then linked into place, which fails if a
 * file appeared meanwhile. A full disk or an interruption leaves no Dockerfile at all (a partial one
 * would make every later run refuse with "file already exists").
 */
export async function writeDockerfile(plan: DockerfilePlan, signal?: AbortSignal): Promise<void> {
  throwIfAborted(signal);
  const dir = path.dirname(plan.file);
  const prefix = `.${path.basename(plan.file)}.tmp-`;
  await removeStale(dir, prefix);
  const temp = ownedFileName(dir, prefix);
  try {
    await writeFile(temp, plan.text, {
      flag: fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY,
      ...(signal === undefined ? {} : { signal }),
    });
    throwIfAborted(signal);
    await link(temp, plan.file);
  } catch (err) {
    if (signal?.aborted === true) throw signal.reason;
    if (errnoCode(err) === 'EEXIST') throw new OpmError(`path "${plan.file}": file already exists`);
    throw new OpmError(`write "${plan.file}": ${errnoText(err)}`, { cause: err });
  } finally {
    await unlink(temp).catch(() => undefined);
    releaseOwned(temp);
  }
}
