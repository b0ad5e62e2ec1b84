#!/bin/sh
# The catalog build of the file-based catalogs procedure in the OpenShift documentation, step by
# step: the catalog's name read from the catalog file, a folder for it and one per reference,
# `opm render <image> > <name>/<reference>/index.yaml` for each, then `opm generate dockerfile
# <name>` (the documentation then runs `docker build` and `docker push`, left out here). The
# documentation's yq is mikefarah's; Debian's yq (a jq wrapper) takes jq's syntax, written here.
#
#   OPM=<opm binary> [OPM_RENDER_FLAGS="--use-http"] docs-script.sh catalog.yaml
set -eu
file="$1"
opm="${OPM:-opm}"
name=$(yq -r '.name' "$file")
mkdir "$name"
yq -r '.name + "/" + .references[].name' "$file" | xargs mkdir
for l in $(yq -r '.name as $catalog | .references[] | .image + "|" + $catalog + "/" + .name + "/index.yaml"' "$file"); do
  image=$(echo "$l" | cut -d'|' -f1)
  out=$(echo "$l" | cut -d'|' -f2)
  # shellcheck disable=SC2086 # the flags are words
  "$opm" render ${OPM_RENDER_FLAGS:-} "$image" > "$out"
done
"$opm" generate dockerfile "$name"
