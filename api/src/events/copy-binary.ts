// PostgreSQL's binary COPY format, read tuple by tuple as its chunks arrive (COPY ... TO STDOUT
// (FORMAT binary), PostgreSQL documentation "COPY", "Binary Format"): a signature and header, then
// per tuple a 16-bit field count (-1 ends the data) and per field a 32-bit length (-1 for NULL)
// followed by the value's bytes. Nothing is decoded here: the caller reads each field where it lies.

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** Signature, flags (32 bits) and the header extension's length (32 bits). */
const HEADER = SIGNATURE.length + 8;

/** A tuple's fields: where each starts in `bytes` and its length (-1 for NULL). Valid during the call. */
export interface CopyTuple {
  bytes: Buffer;
  readonly start: Int32Array;
  readonly length: Int32Array;
}

/** The value of a binary int8 field as a number (exact below 2^53, as times and sequence numbers are). */
export function int8At(t: CopyTuple, field: number): number | null {
  if ((t.length[field] as number) < 0) return null;
  const at = t.start[field] as number;
  return t.bytes.readInt32BE(at) * 4294967296 + t.bytes.readUInt32BE(at + 4);
}

/** The value of a binary float8 field. */
export function float8At(t: CopyTuple, field: number): number | null {
  return (t.length[field] as number) < 0 ? null : t.bytes.readDoubleBE(t.start[field] as number);
}

/** The value of a binary int4 field. */
export function int4At(t: CopyTuple, field: number): number | null {
  return (t.length[field] as number) < 0 ? null : t.bytes.readInt32BE(t.start[field] as number);
}

/**
 * A reader of binary COPY data with `fields` fields per tuple: `push` each chunk as it arrives, and
 * `onTuple` is called for every complete tuple (a tuple split over chunks waits for the rest).
 * `end` checks that the data ended where the format says it does.
 */
export function copyTuples(fields: number, onTuple: (tuple: CopyTuple) => void) {
  const tuple: CopyTuple = {
    bytes: Buffer.alloc(0),
    start: new Int32Array(fields),
    length: new Int32Array(fields),
  };
  /** Reads the whole tuples of `bytes` from `at`; answers where the first incomplete one starts. */
  function tuplesOf(bytes: Buffer, at: number): number {
    tuple.bytes = bytes;
    const { start, length } = tuple;
    for (;;) {
      if (ended || at + 2 > bytes.length) return at;
      const count = bytes.readInt16BE(at);
      if (count === -1) {
        ended = true;
        return at + 2;
      }
      if (count !== fields) throw new Error(`a COPY tuple has ${count} fields, not ${fields}`);
      let p = at + 2;
      for (let f = 0; f < fields; f++) {
        if (p + 4 > bytes.length) return at;
        const n = bytes.readInt32BE(p);
        p += 4;
        start[f] = p;
        length[f] = n;
        if (n > 0) p += n;
        if (p > bytes.length) return at;
      }
      onTuple(tuple);
      at = p;
    }
  }

  /**
   * What is left of a tuple split over chunks, and the next chunk after it: one buffer, kept and
   * grown as needed (a buffer per chunk would be garbage the worker's collector sees late).
   */
  let carry = Buffer.allocUnsafe(1 << 16);
  let carried = 0;
  let header = true;
  let ended = false;
  return {
    push(chunk: Buffer): void {
      let bytes = chunk;
      const inCarry = carried > 0;
      if (inCarry) {
        if (carried + chunk.length > carry.length) {
          const grown = Buffer.allocUnsafe(Math.max(carry.length * 2, carried + chunk.length));
          carry.copy(grown, 0, 0, carried);
          carry = grown;
        }
        chunk.copy(carry, carried);
        bytes = carry.subarray(0, carried + chunk.length);
        carried = 0;
      }
      let at = 0;
      if (header) {
        if (bytes.length >= HEADER) {
          if (!bytes.subarray(0, SIGNATURE.length).equals(SIGNATURE))
            throw new Error("the database's COPY data has no binary COPY signature");
          const extension = bytes.readInt32BE(SIGNATURE.length + 4);
          if (bytes.length >= HEADER + extension) {
            at = HEADER + extension;
            header = false;
          }
        }
      }
      if (!header) at = tuplesOf(bytes, at);
      if (at < bytes.length) {
        if (ended) throw new Error("the database's COPY data goes on after its end");
        // The start of the next tuple, to be completed by the next chunk.
        if (inCarry) bytes.copyWithin(0, at);
        else {
          if (bytes.length - at > carry.length) carry = Buffer.allocUnsafe(bytes.length - at);
          bytes.copy(carry, 0, at);
        }
        carried = bytes.length - at;
      }
    },
    end(): void {
      if (!ended || carried > 0) throw new Error("the database's COPY data ended in the middle of a tuple");
    },
  };
}
