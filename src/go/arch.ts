/** Node's `process.arch` names as Go (and so image platforms and opm's version line) spell them. */
const GO_ARCH: Record<string, string> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  mips64el: 'mips64le',
  loong64: 'loong64',
};

export function goArch(nodeArch: string = process.arch): string {
  return GO_ARCH[nodeArch] ?? nodeArch;
}
