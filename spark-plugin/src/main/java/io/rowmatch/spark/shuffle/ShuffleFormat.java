package io.rowmatch.spark.shuffle;

import java.nio.ByteOrder;

import org.apache.spark.unsafe.Platform;

/**
 * The byte layout of one Arrow shuffle record: the rows of one batch that go to one partition. Spark
 * compresses and checksums the shuffle stream itself, so the record is plain bytes, laid out so that the
 * reader appends it to Arrow vectors with bulk copies.
 *
 * <pre>
 * record  := header column*                      (all integers little-endian)
 * header  := version:u8 (= 1)  columns:i32  rows:i32      (rows > 0)
 * column  := nothing                             for a NullType column
 *          | nulls:u8 [validity] values           otherwise
 * nulls   := 0 (every value valid, no bitmap) | 1 (a validity bitmap follows)
 * validity:= ceil(rows / 8) bytes, bit r (least significant first) set when row r is valid
 * values  := Bit:         ceil(rows / 8) bytes, a bitmap like validity
 *          | fixed width: rows * width bytes, packed (the bytes under a null are whatever the source held)
 *          | var width:   rows i32 end offsets (relative to the column's first byte, non-decreasing; a null
 *                         is empty), then end[rows - 1] bytes
 * </pre>
 *
 * Bitmap padding bits are zero. The record ends exactly where its last column ends. Fixed widths are the
 * Arrow vectors' (1, 2, 4, 8 or 16 bytes), so values travel bit for bit (NaN payloads, -0.0, decimals).
 */
final class ShuffleFormat {
  static final byte VERSION = 1;
  static final int HEADER_BYTES = 9;
  static final byte NO_NULLS = 0;
  static final byte HAS_NULLS = 1;
  static final long BASE = Platform.BYTE_ARRAY_OFFSET;

  private ShuffleFormat() {}

  /** Values are read and written in the machine's order: refuse a machine where that is not the format's. */
  static void requireLittleEndian() {
    if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
      throw new UnsupportedOperationException("the Arrow shuffle needs a little-endian machine");
    }
  }

  static long bitmapBytes(long rows) {
    return (rows + 7) >>> 3;
  }

  /** Bytes of one column of {@code rows} rows, {@code varBytes} of them value bytes for a var-width column. */
  static long columnBytes(int kind, int width, boolean nulls, long rows, long varBytes) {
    if (kind == ShuffleColumns.NULL) {
      return 0;
    }
    long n = 1 + (nulls ? bitmapBytes(rows) : 0);
    switch (kind) {
      case ShuffleColumns.BIT:
        return n + bitmapBytes(rows);
      case ShuffleColumns.FIXED:
        return n + rows * width;
      default:
        return n + 4 * rows + varBytes;
    }
  }

  /**
   * Checks the header of {@code record} against the schema's column count, and that the record is long
   * enough for the rows it declares (so a bad row count fails here, before anything is allocated for it).
   * Returns the row count.
   */
  static int rows(byte[] record, int[] kinds, int[] widths) {
    if (record == null || record.length < HEADER_BYTES) {
      throw malformed("it holds " + (record == null ? "no" : record.length) + " bytes, shorter than the "
          + HEADER_BYTES + "-byte header");
    }
    if (record[0] != VERSION) {
      throw malformed("unknown format version " + record[0] + " (this reader knows " + VERSION + ")");
    }
    int columns = Platform.getInt(record, BASE + 1);
    if (columns != kinds.length) {
      throw malformed("it holds " + columns + " columns, the schema has " + kinds.length);
    }
    int rows = Platform.getInt(record, BASE + 5);
    if (rows <= 0) {
      throw malformed("bad row count " + rows + " (a record holds at least one row)");
    }
    long least = HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      least += columnBytes(kinds[c], widths[c], false, rows, 0);
    }
    if (least > record.length) {
      throw malformed("bad row count " + rows + ": that many rows need at least " + least + " bytes, the record has "
          + record.length);
    }
    return rows;
  }

  static IllegalArgumentException malformed(String what) {
    return new IllegalArgumentException("malformed Arrow shuffle record: " + what);
  }
}
