package io.rowmatch.core.compare;

/**
 * Equality of one row pair in one column: validity and value in one place, dispatched with a switch
 * over the column's kind. Row indices must already be in range for the pair's layouts.
 */
public final class PairEquality {
  private PairEquality() {}

  public static boolean equal(ColumnPair p, int l, int r) {
    boolean lv = !p.lAllNull && (p.lValidity == 0 || RawMemory.bit(p.lValidity, l));
    boolean rv = !p.rAllNull && (p.rValidity == 0 || RawMemory.bit(p.rValidity, r));
    if (lv & rv) {
      return valuesEqual(p, l, r);
    }
    // One side null: never equal. Both null: the column's rule.
    return p.nullsEqual && !lv && !rv;
  }

  /**
   * A fixed-width kind ({@link ColumnKind#BIT} to {@link ColumnKind#FLOAT64}): such a column never has a
   * NullVector side (that makes its kind {@link ColumnKind#NULL}), so the all-null tests are left out. The
   * values are read only behind the validity branch: reading them under nulls without a branch measured
   * slower at 1M rows (RESULTS.md, comparator sessions 3 and 4).
   */
  public static boolean fixedEqual(ColumnPair p, int l, int r) {
    boolean lv = p.lValidity == 0 || RawMemory.bit(p.lValidity, l);
    boolean rv = p.rValidity == 0 || RawMemory.bit(p.rValidity, r);
    if (lv & rv) {
      return valuesEqual(p, l, r);
    }
    return p.nullsEqual && !lv && !rv;
  }

  /**
   * A variable-width or view column ({@link ColumnKind#VAR32}, {@link ColumnKind#VAR64},
   * {@link ColumnKind#VIEW}) or any other kind; VarChar/VarBinary, the common string key, without the switch
   * and the all-null tests (a VAR32 kind has no NullVector side).
   */
  public static boolean varEqual(ColumnPair p, int l, int r) {
    if (p.kind != ColumnKind.VAR32) {
      return equal(p, l, r);
    }
    boolean lv = p.lValidity == 0 || RawMemory.bit(p.lValidity, l);
    boolean rv = p.rValidity == 0 || RawMemory.bit(p.rValidity, r);
    if (lv & rv) {
      return VarWidthEquality.equal32(p, l, r);
    }
    return p.nullsEqual && !lv && !rv;
  }

  /**
   * The values at two valid rows. The kinds Spark keys use most are here; the rest live in
   * {@link #otherValuesEqual} so that this method stays small enough for the JIT to inline into the
   * row loop (HotSpot refuses hot methods over 325 bytes of bytecode).
   */
  static boolean valuesEqual(ColumnPair p, int l, int r) {
    switch (p.kind) {
      case ColumnKind.FIXED4:
        return RawMemory.getInt(p.lData + 4L * l) == RawMemory.getInt(p.rData + 4L * r);
      case ColumnKind.FIXED8:
        return RawMemory.getLong(p.lData + 8L * l) == RawMemory.getLong(p.rData + 8L * r);
      case ColumnKind.FLOAT64:
        return FloatEquality.equal64(Double.longBitsToDouble(RawMemory.getLong(p.lData + 8L * l)),
            Double.longBitsToDouble(RawMemory.getLong(p.rData + 8L * r)), p.nansEqual);
      case ColumnKind.VAR32:
        return VarWidthEquality.equal32(p, l, r);
      case ColumnKind.FIXED16: {
        long la = p.lData + 16L * l;
        long ra = p.rData + 16L * r;
        return RawMemory.getLong(la) == RawMemory.getLong(ra)
            && RawMemory.getLong(la + 8) == RawMemory.getLong(ra + 8);
      }
      default:
        return otherValuesEqual(p, l, r);
    }
  }

  private static boolean otherValuesEqual(ColumnPair p, int l, int r) {
    switch (p.kind) {
      case ColumnKind.BIT:
        return RawMemory.bit(p.lData, l) == RawMemory.bit(p.rData, r);
      case ColumnKind.FIXED1:
        return RawMemory.getByte(p.lData + l) == RawMemory.getByte(p.rData + r);
      case ColumnKind.FIXED2:
        return RawMemory.getShort(p.lData + 2L * l) == RawMemory.getShort(p.rData + 2L * r);
      case ColumnKind.FIXED_BYTES:
        return RawMemory.equalBytes(p.lData + (long) p.width * l, p.rData + (long) p.width * r, p.width);
      case ColumnKind.FLOAT16:
        return FloatEquality.equal16(RawMemory.getShort(p.lData + 2L * l), RawMemory.getShort(p.rData + 2L * r),
            p.nansEqual);
      case ColumnKind.FLOAT32:
        return FloatEquality.equal32(Float.intBitsToFloat(RawMemory.getInt(p.lData + 4L * l)),
            Float.intBitsToFloat(RawMemory.getInt(p.rData + 4L * r)), p.nansEqual);
      case ColumnKind.VAR64:
        return VarWidthEquality.equal64(p, l, r);
      case ColumnKind.VIEW:
        return ViewEquality.equal(p, l, r);
      case ColumnKind.STRUCT:
        return NestedEquality.structEqual(p, l, r);
      case ColumnKind.LIST32:
      case ColumnKind.LIST64:
        return NestedEquality.listEqual(p, l, r);
      case ColumnKind.FIXED_LIST:
        return NestedEquality.fixedListEqual(p, l, r);
      default:
        throw new IllegalStateException("no values to compare for kind " + p.kind + " in " + p.left.name);
    }
  }
}
