/**
 * `opm serve --http-addr`'s address and catalog name, checked before anything loads; apart from
 * serve-http.ts, so that a server without the catalog API does not load Node.js's HTTP modules.
 */
import path from 'node:path';
import { OpmError } from '../errors.js';

/** Where the catalog API listens and under which name, checked before anything loads. */
export interface CatalogApiConfig {
  /** The address as given. */
  addr: string;
  /** Empty for every interface. */
  host: string;
  port: number;
  name: string;
}

/**
 * `host:port`, `[v6]:port` or `:port` as Go's net.Listen takes them (the port as a number); the
 * catalog's name is `name`, or the catalog directory's base name.
 */
export function catalogApiConfig(
  addr: string,
  name: string | undefined,
  configDir: string,
  cwd = '',
): CatalogApiConfig {
  const hint =
    'give host:port, [ipv6]:port or :port, for example --http-addr=:8080 or --http-addr=127.0.0.1:8080';
  const bad = (why: string): OpmError =>
    new OpmError(`invalid --http-addr ${JSON.stringify(addr)}: ${why}`, { hint });
  const colon = addr.lastIndexOf(':');
  if (colon < 0) throw bad('missing port in address');
  let host = addr.slice(0, colon);
  const portText = addr.slice(colon + 1);
  if (host.startsWith('[')) {
    if (!host.endsWith(']')) throw bad('missing "]" in address');
    host = host.slice(1, -1);
  } else if (host.includes(':')) throw bad('too many colons in address');
  else if (host.includes('[') || host.includes(']')) throw bad('unexpected bracket in address');
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)
    throw bad(`invalid port ${JSON.stringify(portText)}`);
  const catalogName = name ?? path.basename(path.resolve(cwd, configDir));
  if (catalogName === '' || catalogName === '.' || catalogName === '..' || catalogName.includes('/')) {
    throw new OpmError(`invalid --catalog-name ${JSON.stringify(catalogName)}: it must be one path segment`, {
      hint: 'name the catalog as its ClusterCatalog is named, for example --catalog-name=operatorhubio',
    });
  }
  return { addr, host, port: Number(portText), name: catalogName };
}
