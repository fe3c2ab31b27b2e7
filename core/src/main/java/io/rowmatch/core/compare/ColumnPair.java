package io.rowmatch.core.compare;

/**
 * One key column seen from both sides, with its rules. The fields the kernels read on every row are
 * copied out of the two {@link ColumnLayout}s into final fields here, so a row comparison touches one
 * object per column and dispatches on {@link #kind} with a switch.
 */
public final class ColumnPair {
  /** The left kind, or {@link ColumnKind#NULL} when either side is a NullVector (no values to compare). */
  public final int kind;
  public final boolean nullsEqual;
  public final boolean nansEqual;
  public final ColumnLayout left;
  public final ColumnLayout right;

  final int width;
  final boolean lAllNull;
  final boolean rAllNull;
  final long lValidity;
  final long rValidity;
  final long lData;
  final long rData;
  final long lDataCapacity;
  final long rDataCapacity;
  final long lOffsets;
  final long rOffsets;
  /** Nested kinds: the children compared with inner rules (null equals null). */
  final ColumnPair[] children;

  private ColumnPair(ColumnLayout left, ColumnLayout right, boolean nullsEqual, boolean nansEqual) {
    this.left = left;
    this.right = right;
    this.nullsEqual = nullsEqual;
    this.nansEqual = nansEqual;
    this.kind = left.allNull || right.allNull ? ColumnKind.NULL : left.kind;
    this.width = left.width;
    this.lAllNull = left.allNull;
    this.rAllNull = right.allNull;
    this.lValidity = left.validity;
    this.rValidity = right.validity;
    this.lData = left.data;
    this.rData = right.data;
    this.lDataCapacity = left.dataCapacity;
    this.rDataCapacity = right.dataCapacity;
    this.lOffsets = left.offsets;
    this.rOffsets = right.offsets;
    if (kind == ColumnKind.NULL) {
      this.children = new ColumnPair[0];
    } else {
      this.children = new ColumnPair[left.children.length];
      for (int i = 0; i < children.length; i++) {
        // Inside a nested value, a null element equals a null element whatever the column's nullsEqual.
        children[i] = new ColumnPair(left.children[i], right.children[i], true, nansEqual);
      }
    }
  }

  /**
   * Pairs two layouts whose fields passed {@link ColumnKind#sameType}(left, right, true); {@code nullsEqual} and
   * {@code nansEqual} are the column's rules.
   */
  public static ColumnPair of(ColumnLayout left, ColumnLayout right, boolean nullsEqual, boolean nansEqual) {
    return new ColumnPair(left, right, nullsEqual, nansEqual);
  }
}
