import { describe, expect, it } from "vitest";
import { type CopyTuple, copyTuples, float8At, int4At, int8At } from "./copy-binary.ts";

/** Binary COPY data as PostgreSQL writes it: signature, flags, header extension, tuples, trailer. */
function copyData(tuples: (Buffer | null)[][], extension = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(4)];
  const extensionLength = Buffer.alloc(4);
  extensionLength.writeInt32BE(extension.length);
  parts.push(extensionLength, extension);
  for (const tuple of tuples) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(tuple.length);
    parts.push(count);
    for (const field of tuple) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(field ? field.length : -1);
      parts.push(length, ...(field ? [field] : []));
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

const int8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
const float8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(n);
  return b;
};
const int4 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

const TUPLES = [
  [Buffer.from("première"), int8(1_764_000_000_123), float8(0.25), int4(-3)],
  [null, int8(-5), null, null],
  [Buffer.from(""), int8(2 ** 53 - 1), float8(-1e300), int4(2 ** 31 - 1)],
  [Buffer.from("x".repeat(70_000)), int8(0), float8(0), int4(0)],
];

/** The tuples read from `data` given in chunks of `sizes` (cycled). */
function readInChunks(data: Buffer, sizes: number[]) {
  const read: unknown[][] = [];
  const reader = copyTuples(4, (t: CopyTuple) =>
    read.push([
      (t.length[0] as number) < 0
        ? null
        : t.bytes.toString("utf8", t.start[0], (t.start[0] as number) + (t.length[0] as number)),
      int8At(t, 1),
      float8At(t, 2),
      int4At(t, 3),
    ]),
  );
  for (let at = 0, i = 0; at < data.length; i++) {
    const size = sizes[i % sizes.length] as number;
    reader.push(data.subarray(at, at + size));
    at += size;
  }
  reader.end();
  return read;
}

const EXPECTED = [
  ["première", 1_764_000_000_123, 0.25, -3],
  [null, -5, null, null],
  ["", 2 ** 53 - 1, -1e300, 2 ** 31 - 1],
  ["x".repeat(70_000), 0, 0, 0],
];

describe("binary COPY reader", () => {
  it("reads every tuple whole, NULLs as null, however the data is cut into chunks", () => {
    const data = copyData(TUPLES, Buffer.from("ext"));
    expect(readInChunks(data, [data.length])).toEqual(EXPECTED);
    expect(readInChunks(data, [1])).toEqual(EXPECTED);
    expect(readInChunks(data, [7, 3, 65_536, 2])).toEqual(EXPECTED);
  });

  it("refuses data that is not binary COPY, or that stops in the middle of a tuple", () => {
    expect(() => readInChunks(Buffer.from("event_id\tsession_id\n".repeat(3)), [64])).toThrow(/signature/);
    const data = copyData(TUPLES);
    const reader = copyTuples(4, () => {});
    reader.push(data.subarray(0, data.length - 10));
    expect(() => reader.end()).toThrow(/middle of a tuple/);
  });

  it("refuses tuples with another number of fields than asked for", () => {
    expect(() => readInChunks(copyData([[int4(1)]]), [100])).toThrow(/1 fields, not 4/);
  });
});
