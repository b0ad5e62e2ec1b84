FROM scratch

LABEL operators.operatorframework.io.bundle.mediatype.v1=helm
LABEL operators.operatorframework.io.bundle.manifests.v1=manifests/
LABEL operators.operatorframework.io.bundle.metadata.v1=metadata/
LABEL operators.operatorframework.io.bundle.package.v1=hello
LABEL operators.operatorframework.io.bundle.channels.v1=stable
COPY helm/chart /manifests/
COPY helm/metadata /metadata/
