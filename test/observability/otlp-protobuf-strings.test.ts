import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * The strings of an OTLP/protobuf trace export (patches/README.md, `@opentelemetry/otlp-transformer`):
 * the writer encodes a long string with TextEncoder.encodeInto and the size estimator counts it
 * the same way. Every string must still be written as protobuf's length-delimited UTF-8 (the
 * length as a varint, then the bytes), and the estimate must equal what is written, or the writer
 * grows its buffer mid-export.
 */

const require = createRequire(import.meta.url);
const protobuf = '@opentelemetry/otlp-transformer/build/src/common/protobuf';
const { ProtobufWriter } = require(`${protobuf}/protobuf-writer.js`) as {
  ProtobufWriter: new (size?: number) => { pos: number; writeString(s: string): void; finish(): Uint8Array };
};
const { ProtobufSizeEstimator } = require(`${protobuf}/protobuf-size-estimator.js`) as {
  ProtobufSizeEstimator: new () => { pos: number; writeString(s: string): void };
};

function varint(value: number): number[] {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return bytes;
}

/** Protobuf's encoding of a string field's value: UTF-8 (a lone surrogate as U+FFFD), its length first. */
function expected(s: string): Buffer {
  const utf8 = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from(varint(utf8.length)), utf8]);
}

const statement = `select o.id, o.title, o.status\n      from offers o\n     where o.workspace_id = $1\n${'       and o.id > $2\n'.repeat(12)}`;
const CASES: [string, string][] = [
  ['empty', ''],
  ['short ASCII', 'db.query.text'],
  ['ASCII at the long threshold', 'x'.repeat(32)],
  ['ASCII just past it', 'x'.repeat(33)],
  ['a statement, past 127 bytes (a two-byte length)', statement],
  ['a long statement, past 16,383 bytes (a three-byte length)', statement.repeat(80)],
  ['long, accented', `${'é'.repeat(40)} and ASCII after it`],
  ['long, one accent at the end', `${'a'.repeat(200)}é`],
  ['long, emoji (surrogate pairs)', '😀 done '.repeat(10)],
  ['long, a lone surrogate', `${'a'.repeat(40)}\ud800b`],
  ['short, accented', 'café'],
];

describe('OTLP protobuf strings (patched writer and estimator)', () => {
  it.each(CASES)('writes %s as length-delimited UTF-8, and estimates exactly that size', (_name, s) => {
    const estimator = new ProtobufSizeEstimator();
    estimator.writeString(s);
    const writer = new ProtobufWriter(estimator.pos);
    writer.writeString(s);
    expect(Buffer.from(writer.finish()).equals(expected(s))).toBe(true);
    expect(estimator.pos).toBe(writer.pos);
  });

  it('writes strings one after another where the buffer is sized exactly', () => {
    const strings = CASES.map(([, s]) => s);
    const estimator = new ProtobufSizeEstimator();
    for (const s of strings) estimator.writeString(s);
    const writer = new ProtobufWriter(estimator.pos);
    for (const s of strings) writer.writeString(s);
    expect(Buffer.from(writer.finish()).equals(Buffer.concat(strings.map(expected)))).toBe(true);
  });
});
