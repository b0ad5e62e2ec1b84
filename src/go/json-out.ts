/** Where the JSON encoders write. */
import { quoteGoString } from './json-quote.js';

/**
 * Where the marshaller puts its output: JSON syntax and already encoded text through `text`,
 * string values and keys (still to be quoted and escaped) through `string`, so that a writer
 * can copy long strings straight to their destination instead of building them into a text.
 */
export interface JsonOut {
  text(s: string): void;
  string(s: string, escapeHTML: boolean): void;
}

/** Output collected as an array of strings (joined by the caller). */
export class PartsOut implements JsonOut {
  readonly parts: string[];
  constructor(parts: string[]) {
    this.parts = parts;
  }
  text(s: string): void {
    this.parts.push(s);
  }
  string(s: string, escapeHTML: boolean): void {
    this.parts.push(quoteGoString(s, escapeHTML));
  }
}
