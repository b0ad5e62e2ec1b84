import { describe, expect, it } from 'vitest';
import { parseImageRefTemplate } from '../../src/action/render/image-ref-template.js';

const data = { Package: 'foo', Name: 'foo.v0.2.0', Version: '0.2.0' };

describe('image reference templates', () => {
  it.each([
    [
      'test.registry/{{.Package}}-operator/{{.Package}}:v{{.Version}}',
      'test.registry/foo-operator/foo:v0.2.0',
    ],
    ['quay.io/x/{{.Name}}', 'quay.io/x/foo.v0.2.0'],
    ['quay.io/x/{{ .Name }}:{{ .Version }}', 'quay.io/x/foo.v0.2.0:0.2.0'],
    ['quay.io/x/bundle@sha256:0123', 'quay.io/x/bundle@sha256:0123'],
    ['', ''],
    ['a  {{- .Package -}}  b', 'afoob'],
    ['a/{{/* a comment */}}b', 'a/b'],
  ])('%j → %j', (source, expected) => {
    expect(parseImageRefTemplate(source).execute(data)).toBe(expected);
  });

  it.each([
    ['x/{{.Package', 'invalid image reference template: unclosed action in "x/{{.Package"'],
    [
      'x/{{.Foo}}',
      'invalid image reference template: unsupported action {{.Foo}} in "x/{{.Foo}}"; the fields are {{.Package}}, {{.Name}} and {{.Version}}',
    ],
    [
      '{{printf "%s" .Name}}',
      'invalid image reference template: unsupported action {{printf "%s" .Name}} in "{{printf \\"%s\\" .Name}}"; the fields are {{.Package}}, {{.Name}} and {{.Version}}',
    ],
  ])('refuses %j', (source, message) => {
    expect(() => parseImageRefTemplate(source)).toThrow(message);
  });
});
