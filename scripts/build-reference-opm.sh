#!/usr/bin/env bash
# Build the reference opm (operator-framework/operator-registry) from the Go module proxy into
# .tools/bin/opm-reference, for the differential test suite. Needs Go; prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${OPM_REFERENCE_VERSION:-v1.73.0}
out="$PWD/.tools/bin/opm-reference"
if [ -x "$out" ]; then echo "$out"; exit 0; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init opm-reference-build >/dev/null 2>&1
go get "github.com/operator-framework/operator-registry/cmd/opm@$version" >&2
mkdir -p "$(dirname "$out")"
# containers/image's OpenPGP build tag avoids a cgo dependency on gpgme.
go build -tags "containers_image_openpgp exclude_graphdriver_btrfs exclude_graphdriver_devicemapper" \
  -o "$out" github.com/operator-framework/operator-registry/cmd/opm >&2
echo "$out"
