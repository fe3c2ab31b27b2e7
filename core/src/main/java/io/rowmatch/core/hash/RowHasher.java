package io.rowmatch.core.hash;

import java.util.Arrays;
import java.util.List;

import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.FloatEquality;
import io.rowmatch.core.compare.RawMemory;
import io.rowmatch.core.compare.ViewEquality;

/**
 * Hashes the key columns of a batch into one {@code long} per row, column by column: the hash of column 0,
 * then column 1 folded in, and so on. It agrees with {@link io.rowmatch.core.MultiColumnComparator} under the
 * same {@code nansEqual}: rows that compare equal hash equal. So -0.0 and 0.0 hash alike, every NaN (any
 * payload, float16/32/64) hashes alike, every null hashes to {@link HashMixer#NULL_HASH} (a NullVector's rows
 * too, so a NullVector and a typed column of nulls agree), nested values hash element by element, and view
 * values hash by their bytes. NaNs are canonicalised whatever {@code nansEqual} says: when NaNs never compare
 * equal any hash is correct, and one fixed hash keeps it deterministic.
 *
 * <p>The column's kind is switched on once per column; the common kinds have their own loop. Reads go
 * through {@link ColumnLayout} (capacities validated at layout build) and variable-width offsets are checked
 * per value, so a malformed vector raises {@link io.rowmatch.core.MalformedVectorException}.
 */
public final class RowHasher {
  private final boolean[] nansEqual;

  public RowHasher(boolean[] nansEqual) {
    if (nansEqual == null) {
      throw new IllegalArgumentException("nansEqual must not be null");
    }
    this.nansEqual = nansEqual.clone();
  }

  public int columnCount() {
    return nansEqual.length;
  }

  /**
   * {@code out[i]} = hash of row {@code i} of {@code keys}, for {@code i < rowCount}.
   *
   * @throws IllegalArgumentException naming the column when the column count is wrong, a column holds fewer
   *     than {@code rowCount} rows, its type is unsupported or its buffers are malformed
   */
  public void hash(List<? extends ValueVector> keys, int rowCount, long[] out) {
    if (keys == null || keys.size() != nansEqual.length) {
      throw new IllegalArgumentException("expected " + nansEqual.length + " key columns, got "
          + (keys == null ? "null" : String.valueOf(keys.size())));
    }
    ColumnLayout[] layouts = new ColumnLayout[keys.size()];
    for (int c = 0; c < layouts.length; c++) {
      ValueVector v = keys.get(c);
      if (v == null) {
        throw new IllegalArgumentException("column " + c + ": vector is null");
      }
      layouts[c] = ColumnLayout.of(v, "column " + c);
    }
    hash(layouts, rowCount, out);
  }

  /** As {@link #hash(List, int, long[])} over layouts already read. */
  public void hash(ColumnLayout[] layouts, int rowCount, long[] out) {
    if (layouts.length != nansEqual.length) {
      throw new IllegalArgumentException("expected " + nansEqual.length + " key columns, got " + layouts.length);
    }
    if (rowCount < 0 || rowCount > out.length) {
      throw new IndexOutOfBoundsException("rowCount " + rowCount + " outside [0, " + out.length + "]");
    }
    for (int c = 0; c < layouts.length; c++) {
      if (layouts[c].valueCount < rowCount) {
        throw new IllegalArgumentException(layouts[c].name + " holds " + layouts[c].valueCount + " rows, fewer than "
            + rowCount);
      }
    }
    // combine(0, h) == h, so column 0 needs no special case.
    Arrays.fill(out, 0, rowCount, 0L);
    for (int c = 0; c < layouts.length; c++) {
      hashColumn(layouts[c], nansEqual[c], rowCount, out);
    }
  }

  private static void hashColumn(ColumnLayout col, boolean nansEqual, int rowCount, long[] out) {
    if (col.allNull) {
      for (int i = 0; i < rowCount; i++) {
        out[i] = HashMixer.combine(out[i], HashMixer.NULL_HASH);
      }
      return;
    }
    switch (col.kind) {
      case ColumnKind.FIXED4:
        fixed4(col, rowCount, out);
        return;
      case ColumnKind.FIXED8:
        fixed8(col, rowCount, out);
        return;
      case ColumnKind.VAR32:
        var32(col, rowCount, out);
        return;
      default:
        for (int i = 0; i < rowCount; i++) {
          out[i] = HashMixer.combine(out[i], valueHash(col, i, nansEqual));
        }
    }
  }

  private static void fixed4(ColumnLayout col, int rowCount, long[] out) {
    final long validity = col.validity;
    final long data = col.data;
    for (int i = 0; i < rowCount; i++) {
      long h = validity == 0 || RawMemory.bit(validity, i) ? HashMixer.mix(RawMemory.getInt(data + 4L * i))
          : HashMixer.NULL_HASH;
      out[i] = HashMixer.combine(out[i], h);
    }
  }

  private static void fixed8(ColumnLayout col, int rowCount, long[] out) {
    final long validity = col.validity;
    final long data = col.data;
    for (int i = 0; i < rowCount; i++) {
      long h = validity == 0 || RawMemory.bit(validity, i) ? HashMixer.mix(RawMemory.getLong(data + 8L * i))
          : HashMixer.NULL_HASH;
      out[i] = HashMixer.combine(out[i], h);
    }
  }

  private static void var32(ColumnLayout col, int rowCount, long[] out) {
    final long validity = col.validity;
    for (int i = 0; i < rowCount; i++) {
      long h = validity == 0 || RawMemory.bit(validity, i) ? var32Value(col, i) : HashMixer.NULL_HASH;
      out[i] = HashMixer.combine(out[i], h);
    }
  }

  private static long var32Value(ColumnLayout col, int row) {
    long o = col.offsets + 4L * row;
    int start = RawMemory.getInt(o);
    int end = RawMemory.getInt(o + 4);
    if (start < 0 || start > end || end > col.dataCapacity) {
      throw col.badOffsets(row, start, end, col.dataCapacity);
    }
    return HashMixer.bytes(col.data + start, end - start);
  }

  /** Hash of one value (null or not) of any kind, recursing into nested values. */
  public static long valueHash(ColumnLayout col, int row, boolean nansEqual) {
    if (!col.isValid(row)) {
      return HashMixer.NULL_HASH;
    }
    switch (col.kind) {
      case ColumnKind.BIT:
        return HashMixer.mix(RawMemory.bit(col.data, row) ? 1 : 0);
      case ColumnKind.FIXED1:
        return HashMixer.mix(RawMemory.getByte(col.data + row));
      case ColumnKind.FIXED2:
        return HashMixer.mix(RawMemory.getShort(col.data + 2L * row));
      case ColumnKind.FIXED4:
        return HashMixer.mix(RawMemory.getInt(col.data + 4L * row));
      case ColumnKind.FIXED8:
        return HashMixer.mix(RawMemory.getLong(col.data + 8L * row));
      case ColumnKind.FIXED16: {
        long a = col.data + 16L * row;
        return HashMixer.combine(HashMixer.mix(RawMemory.getLong(a)), HashMixer.mix(RawMemory.getLong(a + 8)));
      }
      case ColumnKind.FIXED_BYTES:
        return HashMixer.bytes(col.data + (long) col.width * row, col.width);
      case ColumnKind.FLOAT16:
        return HashMixer.mix(canonicalFloat16(RawMemory.getShort(col.data + 2L * row)));
      case ColumnKind.FLOAT32:
        return HashMixer.mix(canonicalFloat32(Float.intBitsToFloat(RawMemory.getInt(col.data + 4L * row))));
      case ColumnKind.FLOAT64:
        return HashMixer.mix(canonicalFloat64(Double.longBitsToDouble(RawMemory.getLong(col.data + 8L * row))));
      case ColumnKind.VAR32:
        return var32Value(col, row);
      case ColumnKind.VAR64: {
        long o = col.offsets + 8L * row;
        long start = RawMemory.getLong(o);
        long end = RawMemory.getLong(o + 8);
        if (start < 0 || start > end || end > col.dataCapacity) {
          throw col.badOffsets(row, start, end, col.dataCapacity);
        }
        return HashMixer.bytes(col.data + start, end - start);
      }
      case ColumnKind.VIEW:
        return viewValue(col, row);
      case ColumnKind.STRUCT: {
        long h = HashMixer.mix(col.children.length);
        for (ColumnLayout child : col.children) {
          h = HashMixer.combine(h, valueHash(child, row, nansEqual));
        }
        return h;
      }
      case ColumnKind.LIST32:
      case ColumnKind.LIST64: {
        long start;
        long end;
        if (col.kind == ColumnKind.LIST32) {
          start = RawMemory.getInt(col.offsets + 4L * row);
          end = RawMemory.getInt(col.offsets + 4L * row + 4);
        } else {
          start = RawMemory.getLong(col.offsets + 8L * row);
          end = RawMemory.getLong(col.offsets + 8L * row + 8);
        }
        ColumnLayout child = col.children[0];
        if (start < 0 || start > end || end > child.valueCount) {
          throw col.badOffsets(row, start, end, child.valueCount);
        }
        return elements(child, (int) start, (int) (end - start), nansEqual);
      }
      case ColumnKind.FIXED_LIST:
        return elements(col.children[0], row * col.width, col.width, nansEqual);
      default:
        throw new IllegalStateException("no hash for kind " + col.kind + " in " + col.name);
    }
  }

  private static long elements(ColumnLayout child, int start, int count, boolean nansEqual) {
    long h = HashMixer.mix(count);
    for (int i = 0; i < count; i++) {
      h = HashMixer.combine(h, valueHash(child, start + i, nansEqual));
    }
    return h;
  }

  private static long viewValue(ColumnLayout col, int row) {
    long view = col.offsets + (long) ColumnLayout.VIEW_SIZE * row;
    int len = RawMemory.getInt(view);
    if (len < 0) {
      throw ColumnLayout.malformed(col.name, "view of row " + row + " has negative length " + len);
    }
    if (len <= ColumnLayout.VIEW_INLINE) {
      return HashMixer.bytes(view + 4, len);
    }
    return HashMixer.bytes(ViewEquality.valueAddress(col, view, row, len), len);
  }

  /** One bit pattern per equality class: every NaN one pattern, -0.0 as 0.0. */
  static long canonicalFloat64(double d) {
    if (d != d) {
      return 0x7FF8000000000000L;
    }
    return d == 0.0 ? 0L : Double.doubleToRawLongBits(d);
  }

  static long canonicalFloat32(float f) {
    if (f != f) {
      return 0x7FC00000L;
    }
    return f == 0.0f ? 0L : Float.floatToRawIntBits(f);
  }

  static long canonicalFloat16(short bits) {
    if (FloatEquality.isNaN16(bits)) {
      return 0x7E00L;
    }
    return (bits & 0x7FFF) == 0 ? 0L : bits;
  }
}
