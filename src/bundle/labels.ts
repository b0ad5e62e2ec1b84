/**
 * The Operator Framework's image labels, which are also a bundle's `metadata/annotations.yaml`
 * keys: the bundle labels, and the labels naming a catalog image's folder and an index image's database.
 */
export const MEDIATYPE_LABEL = 'operators.operatorframework.io.bundle.mediatype.v1';
export const MANIFESTS_LABEL = 'operators.operatorframework.io.bundle.manifests.v1';
export const METADATA_LABEL = 'operators.operatorframework.io.bundle.metadata.v1';
export const PACKAGE_LABEL = 'operators.operatorframework.io.bundle.package.v1';
export const CHANNELS_LABEL = 'operators.operatorframework.io.bundle.channels.v1';
export const DEFAULT_CHANNEL_LABEL = 'operators.operatorframework.io.bundle.channel.default.v1';

/** The catalog image's label: where in the image its catalog folder is. */
export const CONFIGS_LABEL = 'operators.operatorframework.io.index.configs.v1';

/** A SQLite index image's label: where in the image its database is. */
export const DATABASE_LABEL = 'operators.operatorframework.io.index.database.v1';
