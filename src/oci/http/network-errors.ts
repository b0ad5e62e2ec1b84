/** Network failures of the registry client: their codes, which are worth a retry, and their words. */
import { OpmError } from '../../errors.js';

const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'EPROTO',
]);

export const RETRYABLE_NET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Failures to open a connection at all (nothing listens, the name does not resolve, no route, no
 * answer to the connect): trying the same host again at once is not worth it when another source
 * can be tried instead. A connection reset is not among them: a reused keep-alive connection that
 * the server closed looks the same.
 */
const DIAL_FAILURE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Error code of a network failure, looking through undici's wrappers. */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    const code: unknown = Reflect.get(e, 'code');
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = e.cause;
  }
  return undefined;
}

export function isTlsFailure(err: unknown): boolean {
  const code = networkCode(err);
  return (
    code !== undefined && (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
  );
}

/** A raw network failure (before `describeNetworkError`): no connection could be opened. */
export function isDialFailure(code: string | undefined): boolean {
  return code !== undefined && DIAL_FAILURE_CODES.has(code);
}

/**
 * A failure `describeNetworkError` made of a host that could not be reached: refused, reset on every
 * attempt, unknown name, no route, no answer to the connect.
 */
export function isUnreachableHost(err: unknown): boolean {
  return (
    err instanceof OpmError &&
    (err.code === 'E_REGISTRY_UNREACHABLE' ||
      (err.code === 'E_REGISTRY_TIMEOUT' && networkCode(err.cause) === 'UND_ERR_CONNECT_TIMEOUT'))
  );
}

/** TLS failure codes in plain words. */
function tlsProblem(code: string): string {
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return 'the registry certificate is self-signed and not trusted';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'the registry certificate is signed by an unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'the registry certificate has expired';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'the registry certificate is not valid for this host name';
    default:
      return clientCertificateRefused(code)
        ? 'the registry refused the connection: it asks for a client certificate'
        : 'TLS handshake failed';
  }
}

/**
 * A server's alert against the client's certificate (TLS 1.3 says `certificate required`, TLS 1.2
 * `bad certificate` when none was sent): the registry wants one, or another.
 */
function clientCertificateRefused(code: string): boolean {
  return (
    code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' || code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE'
  );
}

/**
 * Every way to trust a registry's CA, for a certificate that could not be verified: the certs.d
 * folders, SSL_CERT_FILE / SSL_CERT_DIR (as Go reads them), NODE_EXTRA_CA_CERTS, or not checking.
 */
export function trustHint(host: string): string {
  return (
    `trust its CA: save it as /etc/containers/certs.d/${host}/ca.crt ` +
    `(or under /etc/docker/certs.d/${host}/ or ~/.config/containers/certs.d/${host}/), ` +
    'or name it with SSL_CERT_FILE, SSL_CERT_DIR or NODE_EXTRA_CA_CERTS; ' +
    'or, if the registry is trusted, use --skip-tls-verify or set insecure = true for it in registries.conf'
  );
}

/** A TLS handshake that met a plain HTTP answer (OpenSSL's "wrong version number"). */
function plainHttpAnswer(err: unknown): boolean {
  const code = networkCode(err);
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return true;
  for (let e: unknown = err, depth = 0; depth < 4 && e instanceof Error; depth++, e = e.cause)
    if (e.message.includes('wrong version number')) return true;
  return false;
}

/** Turn a network failure into a one-line user error naming the host. */
export function describeNetworkError(err: unknown, host: string): OpmError {
  if (err instanceof OpmError) return err;
  const code = networkCode(err) ?? 'unknown';
  if (isTlsFailure(err)) {
    return new OpmError(`${host}: ${tlsProblem(code)} (${code})`, {
      code: 'E_REGISTRY_TLS',
      hint: clientCertificateRefused(code)
        ? `put the client certificate and its key as /etc/containers/certs.d/${host}/client.cert and client.key`
        : plainHttpAnswer(err)
          ? 'the registry may serve plain HTTP: pass --use-http, or set insecure = true for it in registries.conf'
          : trustHint(host),
      cause: err,
    });
  }
  if (code.includes('TIMEOUT') || code === 'ETIMEDOUT') {
    return new OpmError(`${host}: request timed out (${code})`, { code: 'E_REGISTRY_TIMEOUT', cause: err });
  }
  return new OpmError(`${host}: cannot reach registry (${code})`, {
    code: 'E_REGISTRY_UNREACHABLE',
    hint: 'check the registry host and port, and HTTPS_PROXY/NO_PROXY',
    cause: err,
  });
}
