/**
 * A JSON value kept as its text. opm keeps property values as raw bytes (Go json.RawMessage), so
 * number text such as `4.10` and escapes such as `\u003c` survive in JSON output. Values we parse
 * from FBC files go through a generic decode (as opm's do) and need no RawJson; values taken
 * verbatim from bundle directories (olm.properties annotations, properties files) do.
 */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  /** The parsed value (numbers as JS numbers), for the YAML writer and for inspection. */
  parse(): unknown {
    return JSON.parse(this.text);
  }

  toJSON(): unknown {
    return this.parse();
  }
}
