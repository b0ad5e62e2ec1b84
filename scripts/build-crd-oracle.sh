#!/usr/bin/env bash
# Build test/crd-safety/oracle (operator-controller's CRD upgrade safety preflight behind a
# JSON-lines interface) for the tests of src/crd-safety. The preflight's package is internal to
# operator-controller, so the program is built inside a temporary copy of that module.
#
# Sources: the Go module proxy (OPERATOR_CONTROLLER_VERSION, default latest). Where the proxy does
# not serve operator-controller or crdify, a git directory of each can be given instead:
#   OPERATOR_CONTROLLER_GIT=/path/to/operator-controller/.git  CRDIFY_GIT=/path/to/crdify/.git
# (their HEAD is used; crdify then replaces the version operator-controller's go.mod pins).
# Output: CRD_ORACLE_BIN (default .tools/bin/crd-upgrade-oracle); prints its path. Runs at low
# priority, one build at a time: the dependency tree is large.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD/test/crd-safety/oracle"
out=${CRD_ORACLE_BIN:-$PWD/.tools/bin/crd-upgrade-oracle}
version=${OPERATOR_CONTROLLER_VERSION:-latest}
if [ -x "$out" ] && [ -z "$(find "$src" -newer "$out" -type f)" ]; then
  echo "$out"
  exit 0
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
mod="$work/operator-controller"
mkdir -p "$mod"
if [ -n "${OPERATOR_CONTROLLER_GIT:-}" ]; then
  git --git-dir="$OPERATOR_CONTROLLER_GIT" archive HEAD | tar -x -C "$mod"
else
  dir=$(cd "$work" && go mod download -json "github.com/operator-framework/operator-controller@$version" |
    sed -n 's/^\t"Dir": "\(.*\)",$/\1/p') || true
  if [ -z "$dir" ]; then
    # The module proxy refuses the module (it answered 403 "not available" here): say so where the
    # test looks, so that it reports why it cannot compare rather than only that nothing was built.
    mkdir -p "$(dirname "$out")"
    echo "the Go module proxy does not serve github.com/operator-framework/operator-controller@$version (set OPERATOR_CONTROLLER_GIT and CRDIFY_GIT to git directories of both)" >"$out.unavailable"
    echo "cannot download operator-controller@$version (set OPERATOR_CONTROLLER_GIT)" >&2
    exit 1
  fi
  cp -r "$dir/." "$mod"
  chmod -R u+w "$mod"
fi
if [ -n "${CRDIFY_GIT:-}" ]; then
  mkdir -p "$work/crdify"
  git --git-dir="$CRDIFY_GIT" archive HEAD | tar -x -C "$work/crdify"
  (cd "$mod" && go mod edit -replace "sigs.k8s.io/crdify=$work/crdify")
fi
mkdir -p "$mod/cmd/crd-upgrade-oracle"
cp "$src/main.go" "$mod/cmd/crd-upgrade-oracle/"
mkdir -p "$(dirname "$out")"
(cd "$mod" && GOFLAGS="-mod=mod -buildvcs=false" nice -n 19 go build -p 1 -o "$out.tmp" ./cmd/crd-upgrade-oracle)
mv "$out.tmp" "$out"
rm -f "$out.unavailable"
echo "$out"
