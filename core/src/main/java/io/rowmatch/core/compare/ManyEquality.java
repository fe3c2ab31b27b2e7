package io.rowmatch.core.compare;

/**
 * One column over many row pairs: {@code out[k] &= equal(left[k], right[k])}. The common kinds get their
 * own loop (the switch runs once per column, not per pair). Fixed-width loops are branch-free and read
 * every pair, even one an earlier column already ruled out: the loads of independent pairs then overlap
 * (memory-level parallelism), which beats skipping when the rows are scattered. Variable-width and the
 * remaining kinds skip ruled-out pairs, since their reads depend on the offsets.
 */
public final class ManyEquality {
  private ManyEquality() {}

  public static void andEqual(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    switch (p.kind) {
      case ColumnKind.NULL:
        nullColumn(p, lrows, rrows, count, out);
        return;
      case ColumnKind.FIXED4:
        fixed4(p, lrows, rrows, count, out);
        return;
      case ColumnKind.FIXED8:
        fixed8(p, lrows, rrows, count, out);
        return;
      case ColumnKind.FLOAT64:
        float64(p, lrows, rrows, count, out);
        return;
      case ColumnKind.VAR32:
        var32(p, lrows, rrows, count, out);
        return;
      default:
        for (int k = 0; k < count; k++) {
          if (out[k]) {
            out[k] = PairEquality.equal(p, lrows[k], rrows[k]);
          }
        }
    }
  }

  private static void nullColumn(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    for (int k = 0; k < count; k++) {
      if (out[k]) {
        out[k] = PairEquality.equal(p, lrows[k], rrows[k]);
      }
    }
  }

  private static void fixed4(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    final long lval = p.lValidity;
    final long rval = p.rValidity;
    final long ld = p.lData;
    final long rd = p.rData;
    final boolean nullsEqual = p.nullsEqual;
    for (int k = 0; k < count; k++) {
      int l = lrows[k];
      int r = rrows[k];
      boolean lv = lval == 0 || RawMemory.bit(lval, l);
      boolean rv = rval == 0 || RawMemory.bit(rval, r);
      boolean same = RawMemory.getInt(ld + 4L * l) == RawMemory.getInt(rd + 4L * r);
      out[k] &= (lv & rv & same) | (nullsEqual & !lv & !rv);
    }
  }

  private static void fixed8(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    final long lval = p.lValidity;
    final long rval = p.rValidity;
    final long ld = p.lData;
    final long rd = p.rData;
    final boolean nullsEqual = p.nullsEqual;
    for (int k = 0; k < count; k++) {
      int l = lrows[k];
      int r = rrows[k];
      boolean lv = lval == 0 || RawMemory.bit(lval, l);
      boolean rv = rval == 0 || RawMemory.bit(rval, r);
      boolean same = RawMemory.getLong(ld + 8L * l) == RawMemory.getLong(rd + 8L * r);
      out[k] &= (lv & rv & same) | (nullsEqual & !lv & !rv);
    }
  }

  private static void float64(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    final long lval = p.lValidity;
    final long rval = p.rValidity;
    final long ld = p.lData;
    final long rd = p.rData;
    final boolean nullsEqual = p.nullsEqual;
    final boolean nansEqual = p.nansEqual;
    for (int k = 0; k < count; k++) {
      int l = lrows[k];
      int r = rrows[k];
      boolean lv = lval == 0 || RawMemory.bit(lval, l);
      boolean rv = rval == 0 || RawMemory.bit(rval, r);
      double a = Double.longBitsToDouble(RawMemory.getLong(ld + 8L * l));
      double b = Double.longBitsToDouble(RawMemory.getLong(rd + 8L * r));
      boolean same = (a == b) | (nansEqual & a != a & b != b);
      out[k] &= (lv & rv & same) | (nullsEqual & !lv & !rv);
    }
  }

  private static void var32(ColumnPair p, int[] lrows, int[] rrows, int count, boolean[] out) {
    final long lval = p.lValidity;
    final long rval = p.rValidity;
    final boolean nullsEqual = p.nullsEqual;
    for (int k = 0; k < count; k++) {
      if (out[k]) {
        int l = lrows[k];
        int r = rrows[k];
        boolean lv = lval == 0 || RawMemory.bit(lval, l);
        boolean rv = rval == 0 || RawMemory.bit(rval, r);
        out[k] = (lv & rv) ? VarWidthEquality.equal32(p, l, r) : nullsEqual && !lv && !rv;
      }
    }
  }
}
