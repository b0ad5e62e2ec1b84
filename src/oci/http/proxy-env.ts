/** Which proxy a request goes through, from HTTP(S)_PROXY and NO_PROXY as Go reads them. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): string | undefined {
  const pick = (...names: string[]): string | undefined => {
    for (const n of names) {
      const v = env[n];
      if (v !== undefined && v !== '') return v;
    }
    return undefined;
  };
  const proxy =
    url.protocol === 'https:' ? pick('https_proxy', 'HTTPS_PROXY') : pick('http_proxy', 'HTTP_PROXY');
  if (proxy === undefined) return undefined;
  const noProxy = pick('no_proxy', 'NO_PROXY') ?? '';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port !== '' ? url.port : url.protocol === 'https:' ? '443' : '80';
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return undefined;
    const m = /^(.*?)(?::(\d+))?$/.exec(entry);
    const eh = (m?.[1] ?? entry).replace(/^\*?\./, '').replace(/^\[|\]$/g, '');
    const ep = m?.[2];
    if (ep !== undefined && ep !== port) continue;
    if (host === eh || host.endsWith(`.${eh}`)) return undefined;
  }
  return proxy;
}
