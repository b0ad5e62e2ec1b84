import type { ProgressSink } from '../util/progress.js';

/**
 * What render needs from an image: its labels and its unpacked filesystem. The registry client
 * (src/oci/) implements this; tests of render may pass a directory-backed source.
 */
export interface PulledImage {
  /** The reference as the user typed it (becomes a bundle's `image`). */
  ref: string;
  /** Digest of the manifest that was pulled (`sha256:…`). */
  digest: string;
  /** Labels of the image config (`config.Labels`). */
  labels: Record<string, string>;
  /** The image config's `Cmd`, when the source knows it (`serve <image>` finds the cache by it). */
  cmd?: string[];
  /** Directory holding the unpacked image filesystem (all layers applied). */
  root: string;
  /**
   * The modes the image's files and folders were archived with, by path inside it (`a/b`); the
   * files under `root` are written 0600 and its folders 0700 whatever these say. Absent from
   * sources that do not know them.
   */
  modes?: ReadonlyMap<string, number>;
  /** Remove whatever temporary files the pull left. Safe to call twice. */
  release(): Promise<void>;
}

/** Options of one pull. */
export interface PullOptions {
  /** Stops the pull: the promise rejects with the signal's reason, and nothing is left behind. */
  signal?: AbortSignal;
}

export interface ImageSource {
  /** Pull and unpack; failures are OpmErrors saying `failed to pull image "<ref>": …`, as opm words them. */
  pull(ref: string, options?: PullOptions): Promise<PulledImage>;
}

/**
 * Options of `createImageSource`: those of the registry client, with TLS verified, HTTPS only and
 * the process's environment unless said otherwise.
 */
export type ImageSourceOptions = Omit<RegistryOptions, 'skipTlsVerify' | 'useHttp' | 'env'> &
  Partial<Pick<RegistryOptions, 'skipTlsVerify' | 'useHttp' | 'env'>>;

/** Options of the registry client, from the CLI's global flags and the environment. */
export interface RegistryOptions {
  skipTlsVerify: boolean;
  useHttp: boolean;
  /** `os/arch[/variant]`; default `linux/<host arch>`. */
  platform?: string;
  /** Bypass the blob cache. */
  noCache?: boolean;
  /** Cache root; default $OLM_CACHE_DIR, else the XDG cache folder. */
  cacheDir?: string;
  /** The environment credentials, proxies and the cache folder are read from. */
  env: Record<string, string | undefined>;
  /** Progress/log lines (stderr); omitted = silent. */
  log?: (line: string) => void;
  /**
   * Progress of each pull as data (start, bytes, end); when given, the `log` lines that say the same
   * (`pulling <ref>`, `fetched layer …`) are left out.
   */
  onProgress?: ProgressSink;
  /** Warnings (an ignored credential entry, a failing credential helper); default: `log`. */
  warn?: (line: string) => void;
  /**
   * Folders holding `<host[:port]>/` directories of extra CAs (`*.crt`) and client certificates
   * (`*.cert` + `*.key`); default /etc/containers/certs.d, /etc/docker/certs.d,
   * ~/.config/containers/certs.d.
   */
  certDirs?: string[];
  /**
   * CA certificates (PEM) trusted for every registry besides the others (`alpha bundle unpack
   * --root-ca`).
   */
  rootCaPem?: string;
  /** Where unpacked images are placed; default the system temp folder. */
  workDir?: string;
  /** Most bytes an image may unpack to; default 8 GiB. */
  maxUnpackedBytes?: number;
  /**
   * Prefix for the system-wide registries.conf paths (/etc/containers/…); default `/`. Tests point
   * it at an empty folder so the machine's configuration stays out of them.
   */
  configRoot?: string;
}
