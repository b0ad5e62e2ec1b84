// Generated from registry.proto by scripts/generate-registry-file.js; do not edit.
// src/api-contract/registry-file.test.ts checks that it is what the proto gives.

/** registry.proto of operator-registry's `api` package, as this repository's copy declares it. */
export const REGISTRY_PROTO = {
  name: 'registry.proto',
  package: 'api',
  dependencies: ['google/protobuf/struct.proto'],
  goPackage: '.;api',
  messages: [
    {
      name: 'Channel',
      fields: [
        { name: 'name', type: 'string', number: 1 },
        { name: 'csvName', type: 'string', number: 2 },
        { name: 'deprecation', type: '.api.Deprecation', number: 3 },
      ],
    },
    {
      name: 'PackageName',
      fields: [{ name: 'name', type: 'string', number: 1 }],
    },
    {
      name: 'Package',
      fields: [
        { name: 'name', type: 'string', number: 1 },
        { name: 'channels', type: '.api.Channel', repeated: true, number: 2 },
        { name: 'defaultChannelName', type: 'string', number: 3 },
        { name: 'deprecation', type: '.api.Deprecation', number: 4 },
      ],
    },
    {
      name: 'GroupVersionKind',
      fields: [
        { name: 'group', type: 'string', number: 1 },
        { name: 'version', type: 'string', number: 2 },
        { name: 'kind', type: 'string', number: 3 },
        { name: 'plural', type: 'string', number: 4 },
      ],
    },
    {
      name: 'Dependency',
      fields: [
        { name: 'type', type: 'string', number: 1 },
        { name: 'value', type: 'string', number: 2 },
      ],
    },
    {
      name: 'Property',
      fields: [
        { name: 'type', type: 'string', number: 1 },
        { name: 'value', type: 'string', number: 2 },
      ],
    },
    {
      name: 'Bundle',
      fields: [
        { name: 'csvName', type: 'string', number: 1 },
        { name: 'packageName', type: 'string', number: 2 },
        { name: 'channelName', type: 'string', number: 3 },
        { name: 'csvJson', type: 'string', number: 4 },
        { name: 'object', type: 'string', repeated: true, number: 5 },
        { name: 'bundlePath', type: 'string', number: 6 },
        { name: 'providedApis', type: '.api.GroupVersionKind', repeated: true, number: 7 },
        { name: 'requiredApis', type: '.api.GroupVersionKind', repeated: true, number: 8 },
        { name: 'version', type: 'string', number: 9 },
        { name: 'skipRange', type: 'string', number: 10 },
        { name: 'dependencies', type: '.api.Dependency', repeated: true, number: 11 },
        { name: 'properties', type: '.api.Property', repeated: true, number: 12 },
        { name: 'replaces', type: 'string', number: 13 },
        { name: 'skips', type: 'string', repeated: true, number: 14 },
        { name: 'deprecation', type: '.api.Deprecation', number: 15 },
      ],
    },
    {
      name: 'ChannelEntry',
      fields: [
        { name: 'packageName', type: 'string', number: 1 },
        { name: 'channelName', type: 'string', number: 2 },
        { name: 'bundleName', type: 'string', number: 3 },
        { name: 'replaces', type: 'string', number: 4 },
      ],
    },
    {
      name: 'ListPackageRequest',
      fields: [],
    },
    {
      name: 'ListBundlesRequest',
      fields: [],
    },
    {
      name: 'GetPackageRequest',
      fields: [{ name: 'name', type: 'string', number: 1 }],
    },
    {
      name: 'GetBundleRequest',
      fields: [
        { name: 'pkgName', type: 'string', number: 1 },
        { name: 'channelName', type: 'string', number: 2 },
        { name: 'csvName', type: 'string', number: 3 },
      ],
    },
    {
      name: 'GetBundleInChannelRequest',
      fields: [
        { name: 'pkgName', type: 'string', number: 1 },
        { name: 'channelName', type: 'string', number: 2 },
      ],
    },
    {
      name: 'GetAllReplacementsRequest',
      fields: [{ name: 'csvName', type: 'string', number: 1 }],
    },
    {
      name: 'GetReplacementRequest',
      fields: [
        { name: 'csvName', type: 'string', number: 1 },
        { name: 'pkgName', type: 'string', number: 2 },
        { name: 'channelName', type: 'string', number: 3 },
      ],
    },
    {
      name: 'GetAllProvidersRequest',
      fields: [
        { name: 'group', type: 'string', number: 1 },
        { name: 'version', type: 'string', number: 2 },
        { name: 'kind', type: 'string', number: 3 },
        { name: 'plural', type: 'string', number: 4 },
      ],
    },
    {
      name: 'GetLatestProvidersRequest',
      fields: [
        { name: 'group', type: 'string', number: 1 },
        { name: 'version', type: 'string', number: 2 },
        { name: 'kind', type: 'string', number: 3 },
        { name: 'plural', type: 'string', number: 4 },
      ],
    },
    {
      name: 'GetDefaultProviderRequest',
      fields: [
        { name: 'group', type: 'string', number: 1 },
        { name: 'version', type: 'string', number: 2 },
        { name: 'kind', type: 'string', number: 3 },
        { name: 'plural', type: 'string', number: 4 },
      ],
    },
    {
      name: 'Deprecation',
      fields: [{ name: 'message', type: 'string', number: 1 }],
    },
    {
      name: 'ExperimentalListPackageCustomSchemasRequest',
      fields: [
        { name: 'schema', type: 'string', number: 1 },
        { name: 'packageName', type: 'string', number: 2 },
      ],
    },
  ],
  services: [
    {
      name: 'Registry',
      methods: [
        {
          name: 'ListPackages',
          input: '.api.ListPackageRequest',
          output: '.api.PackageName',
          serverStreaming: true,
        },
        { name: 'GetPackage', input: '.api.GetPackageRequest', output: '.api.Package' },
        { name: 'GetBundle', input: '.api.GetBundleRequest', output: '.api.Bundle' },
        {
          name: 'GetBundleForChannel',
          input: '.api.GetBundleInChannelRequest',
          output: '.api.Bundle',
          deprecated: true,
        },
        {
          name: 'GetChannelEntriesThatReplace',
          input: '.api.GetAllReplacementsRequest',
          output: '.api.ChannelEntry',
          serverStreaming: true,
        },
        { name: 'GetBundleThatReplaces', input: '.api.GetReplacementRequest', output: '.api.Bundle' },
        {
          name: 'GetChannelEntriesThatProvide',
          input: '.api.GetAllProvidersRequest',
          output: '.api.ChannelEntry',
          serverStreaming: true,
        },
        {
          name: 'GetLatestChannelEntriesThatProvide',
          input: '.api.GetLatestProvidersRequest',
          output: '.api.ChannelEntry',
          serverStreaming: true,
        },
        {
          name: 'GetDefaultBundleThatProvides',
          input: '.api.GetDefaultProviderRequest',
          output: '.api.Bundle',
        },
        {
          name: 'ListBundles',
          input: '.api.ListBundlesRequest',
          output: '.api.Bundle',
          serverStreaming: true,
        },
      ],
    },
    {
      name: 'ExperimentalRegistry',
      methods: [
        {
          name: 'ExperimentalListPackageCustomSchemas',
          input: '.api.ExperimentalListPackageCustomSchemasRequest',
          output: '.google.protobuf.Struct',
          serverStreaming: true,
        },
      ],
    },
  ],
};
