#!/usr/bin/env bash
# Build the real gRPC clients that the `opm serve` tests and bench drive, into .tools/bin/, from the
# Go module proxy: grpcurl (reflection and JSON, as people poke a catalog server), grpc_health_probe
# (what catalog pods' probes run), and opm-serve-client (test/serve/go-client: operator-registry's
# own client package, what OLM calls the server with). Needs Go; prints the three paths, one a line.
# A binary already there is reused; opm-serve-client is rebuilt when its sources are newer. The
# three build in parallel: grpcurl's dependency tree takes minutes on a small machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$PWD/.tools/bin"
grpcurl_version=${GRPCURL_VERSION:-v1.9.4}
probe_version=${GRPC_HEALTH_PROBE_VERSION:-v0.4.62}
mkdir -p "$bin"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# go install into a scratch GOBIN, then move into place: a build cut short leaves no binary behind.
install_tool() { # name package@version
  local name=$1 spec=$2 gobin
  [ -x "$bin/$name" ] && return 0
  gobin=$(mktemp -d)
  # -mod=mod: grpcurl's module needs its go.sum completed at install time.
  if GOBIN="$gobin" GOFLAGS="-mod=mod -buildvcs=false" go install "$spec"; then
    mv "$gobin/$name" "$bin/$name"
    rm -rf "$gobin"
  else
    rm -rf "$gobin"
    return 1
  fi
}

build_client() {
  local src="$PWD/test/serve/go-client" out="$bin/opm-serve-client"
  if [ -x "$out" ] && [ -z "$(find "$src" -newer "$out" -type f)" ]; then return 0; fi
  (cd "$src" && go build -buildvcs=false -o "$out.tmp" . && mv "$out.tmp" "$out")
}

install_tool grpcurl "github.com/fullstorydev/grpcurl/cmd/grpcurl@$grpcurl_version" >"$logs/grpcurl" 2>&1 &
grpcurl=$!
install_tool grpc-health-probe "github.com/grpc-ecosystem/grpc-health-probe@$probe_version" >"$logs/probe" 2>&1 &
probe=$!
build_client >"$logs/client" 2>&1 &
client=$!

status=0
for job in "grpcurl:$grpcurl" "probe:$probe" "client:$client"; do
  if ! wait "${job#*:}"; then
    echo "building ${job%%:*} failed:" >&2
    cat "$logs/${job%%:*}" >&2
    status=1
  fi
done
[ "$status" = 0 ] || exit 1
# The module's binary is grpc-health-probe; the probes and docs call it grpc_health_probe.
ln -sf grpc-health-probe "$bin/grpc_health_probe"
echo "$bin/grpcurl"
echo "$bin/grpc_health_probe"
echo "$bin/opm-serve-client"
