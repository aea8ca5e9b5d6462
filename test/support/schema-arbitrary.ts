import fc from 'fast-check';

/** The JSON Schema keywords TypeBox writes for the IPC contract's inputs. */
interface Schema {
  const?: unknown;
  anyOf?: Schema[];
  allOf?: Schema[];
  type?: string;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  maxProperties?: number;
}

/** Long enough to reach a limit, short enough that a run stays quick. */
const LONGEST_STRING = 300;
const MOST_ITEMS = 4;

/** Text a hostile caller would try: any code points, markup, paths, control characters. */
const hostileText = (minLength: number, maxLength: number) =>
  fc.oneof(
    fc.string({ minLength, maxLength, unit: 'binary' }),
    fc
      .constantFrom(
        '<script>alert(1)</script>',
        '../../../../etc/passwd',
        '%00',
        '\u202e\u0000\r\n',
        "'; DROP TABLE labels; --",
        '${process.exit()}',
      )
      .filter((text) => text.length >= minLength && text.length <= maxLength),
  );

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  uuid: fc.uuid(),
  'date-time': fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  date: fc
    .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
};

/**
 * Values that satisfy `schema` (a TypeBox schema of the IPC contract), chosen to be as unkind as
 * the schema allows: extremes of numbers, strings at their limits, markup and paths as text.
 * Callers still check each value against the compiled schema (keywords this does not know).
 */
export function arbitraryOf(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map(arbitraryOf));
  if (schema.allOf) {
    // TypeBox's Composite is flattened already; an allOf here is one object after another.
    return fc
      .tuple(...schema.allOf.map(arbitraryOf))
      .map((parts) => Object.assign({}, ...(parts as object[])) as unknown);
  }
  switch (schema.type) {
    case 'string': {
      if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? LONGEST_STRING, LONGEST_STRING);
      if (schema.pattern)
        return fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((text) => text.length >= minLength && text.length <= (schema.maxLength ?? 1e9));
      return hostileText(minLength, Math.max(minLength, maxLength));
    }
    case 'integer': {
      const min = schema.minimum ?? (schema.exclusiveMinimum ?? Number.MIN_SAFE_INTEGER - 1) + 1;
      const max = schema.maximum ?? (schema.exclusiveMaximum ?? Number.MAX_SAFE_INTEGER + 1) - 1;
      return fc.oneof(
        fc.constantFrom(min, max),
        fc.integer({
          min: Math.max(min, Number.MIN_SAFE_INTEGER),
          max: Math.min(max, Number.MAX_SAFE_INTEGER),
        }),
      );
    }
    case 'number':
      return fc.double({
        min: schema.minimum ?? -Number.MAX_VALUE,
        max: schema.maximum ?? Number.MAX_VALUE,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? MOST_ITEMS, MOST_ITEMS),
      });
    case 'object': {
      if (schema.patternProperties) {
        const [pattern, value] = Object.entries(schema.patternProperties)[0]!;
        return fc.dictionary(fc.stringMatching(new RegExp(pattern)), arbitraryOf(value), {
          maxKeys: Math.min(schema.maxProperties ?? MOST_ITEMS, MOST_ITEMS),
        });
      }
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, arbitraryOf(value)]),
      );
      return fc.record(properties, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.anything();
  }
}
