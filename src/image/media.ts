/** The media types of an image's parts, in the family its base uses (Docker v2 or OCI). */
export type MediaFamily = 'docker' | 'oci';

export const MEDIA = {
  docker: {
    manifest: 'application/vnd.docker.distribution.manifest.v2+json',
    index: 'application/vnd.docker.distribution.manifest.list.v2+json',
    config: 'application/vnd.docker.container.image.v1+json',
    layer: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
  },
  oci: {
    manifest: 'application/vnd.oci.image.manifest.v1+json',
    index: 'application/vnd.oci.image.index.v1+json',
    config: 'application/vnd.oci.image.config.v1+json',
    layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
  },
} as const;

/** The family of a manifest or index media type (anything not Docker's is OCI). */
export function familyOf(mediaType: string): MediaFamily {
  return mediaType.startsWith('application/vnd.docker.') ? 'docker' : 'oci';
}
