/** Number text as Go writes it: encoding/json's float64 and strconv's `%g`-like shortest form. */
import { OpmError } from '../errors.js';

/**
 * A float64 as encoding/json writes it: shortest round-trip digits, plain decimal for
 * 1e-6 <= |x| < 1e21, otherwise exponent form (`1e+21`, `1e-7`). JavaScript's Number#toString
 * uses the same digits and the same thresholds; only negative zero differs (Go writes `-0`).
 */
export function formatGoJsonNumber(x: number): string {
  if (!Number.isFinite(x)) {
    throw new OpmError(`json: unsupported value: ${goFloatWord(x)}`);
  }
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  return String(x);
}

function goFloatWord(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  return x > 0 ? '+Inf' : '-Inf';
}

/**
 * Go `strconv.FormatFloat(x, 'g', -1, 64)`: shortest digits, exponent form when the decimal
 * exponent is below -4 or at least 6 (`1e+06`, `1e-05`, two exponent digits at least).
 */
export function formatGoFloatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const e = x.toExponential(); // shortest round-trip digits, e.g. "-1.2345e+2"
  const ePos = e.indexOf('e');
  let mant = e.slice(0, ePos);
  const exp = Number(e.slice(ePos + 1));
  let sign = '';
  if (mant.startsWith('-')) {
    sign = '-';
    mant = mant.slice(1);
  }
  const digits = mant.length > 1 ? mant[0] + mant.slice(2) : mant;
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return (
      sign +
      (digits.length > 1 ? digits[0] + '.' + digits.slice(1) : digits) +
      'e' +
      (exp < 0 ? '-' : '+') +
      (abs < 10 ? '0' + abs : String(abs))
    );
  }
  if (exp < 0) return sign + '0.' + '0'.repeat(-exp - 1) + digits;
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
  return sign + digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
}
