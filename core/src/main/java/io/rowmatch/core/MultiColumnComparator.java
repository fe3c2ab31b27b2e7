package io.rowmatch.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.compare.ColumnKind;
import io.rowmatch.core.compare.ColumnLayout;
import io.rowmatch.core.compare.ColumnPair;
import io.rowmatch.core.compare.ManyEquality;
import io.rowmatch.core.compare.PairEquality;

/**
 * Is row {@code i} of these key columns equal to row {@code j} of those? Built once per pair of
 * batches (O(columns): the vectors' buffers are retained, not copied), then asked many times.
 *
 * <p>Semantics, per column {@code c}: both null gives {@code nullsEqual[c]}; one null gives false; a
 * {@code NullVector} side is null at every row; NaN equals NaN (any payload) iff {@code nansEqual[c]};
 * -0.0 equals 0.0; nested values compare element by element with inner nulls equal; zero columns make
 * every pair equal.
 *
 * <p>Immutable after build and safe to share between threads. {@link #close()} releases the retained
 * buffers; a closed comparator refuses further calls.
 */
public final class MultiColumnComparator implements AutoCloseable {
  private final ColumnPair[] columns;
  /**
   * The order {@link #equal} checks the columns in (equality is an AND over them, so the order changes no
   * answer). First variable-width and view columns: each has two dependent loads (offsets or view entry,
   * then the bytes), the longest chain of cache misses in a row, so it starts before anything else.
   */
  private final ColumnPair[] varColumns;
  /** Then the fixed-width ones, without branching between them; a pair whose strings differed never reads them. */
  private final ColumnPair[] fixedColumns;
  /** Last nested columns and NullVector sides, only for pairs equal so far; first mismatch ends. */
  private final ColumnPair[] otherColumns;
  private final int leftRows;
  private final int rightRows;
  private final List<ArrowBuf> retained;
  private final AtomicBoolean closedOnce = new AtomicBoolean();
  private volatile boolean closed;

  private MultiColumnComparator(ColumnPair[] columns, int leftRows, int rightRows, List<ArrowBuf> retained) {
    this.columns = columns;
    this.varColumns = Arrays.stream(columns).filter(MultiColumnComparator::isVar).toArray(ColumnPair[]::new);
    this.fixedColumns = Arrays.stream(columns).filter(MultiColumnComparator::isFixed).toArray(ColumnPair[]::new);
    this.otherColumns = Arrays.stream(columns).filter(p -> !isVar(p) && !isFixed(p)).toArray(ColumnPair[]::new);
    this.leftRows = leftRows;
    this.rightRows = rightRows;
    this.retained = retained;
  }

  /**
   * Builds a comparator over {@code left.get(c)} and {@code right.get(c)} for every key column
   * {@code c}. The two sides may hold different row counts; the columns of one side must agree.
   *
   * @throws IllegalArgumentException naming the column when the counts, flags or types don't fit,
   *     or when a vector's buffers are too short for its value count ({@link MalformedVectorException})
   */
  public static MultiColumnComparator build(List<? extends ValueVector> left, List<? extends ValueVector> right,
      boolean[] nullsEqual, boolean[] nansEqual) {
    if (left == null || right == null || nullsEqual == null || nansEqual == null) {
      throw new IllegalArgumentException("left, right, nullsEqual and nansEqual must not be null");
    }
    int n = left.size();
    if (right.size() != n) {
      throw new IllegalArgumentException("left has " + n + " key columns but right has " + right.size());
    }
    if (nullsEqual.length != n || nansEqual.length != n) {
      throw new IllegalArgumentException("nullsEqual has " + nullsEqual.length + " flags and nansEqual has "
          + nansEqual.length + ", but there are " + n + " key columns");
    }
    ColumnPair[] columns = new ColumnPair[n];
    int leftRows = -1;
    int rightRows = -1;
    for (int c = 0; c < n; c++) {
      ValueVector l = left.get(c);
      ValueVector r = right.get(c);
      if (l == null || r == null) {
        throw new IllegalArgumentException("column " + c + ": " + (l == null ? "left" : "right") + " vector is null");
      }
      if (!ColumnKind.sameType(l.getField(), r.getField(), true)) {
        throw new IllegalArgumentException("column " + c + ": left type " + ColumnKind.describe(l.getField())
            + " differs from right type " + ColumnKind.describe(r.getField()));
      }
      ColumnLayout ll = ColumnLayout.of(l, "column " + c + " (left)");
      ColumnLayout rl = ColumnLayout.of(r, "column " + c + " (right)");
      leftRows = sameRowCount(leftRows, ll, c, "left");
      rightRows = sameRowCount(rightRows, rl, c, "right");
      columns[c] = ColumnPair.of(ll, rl, nullsEqual[c], nansEqual[c]);
    }
    List<ArrowBuf> retained = new ArrayList<>();
    for (ColumnPair p : columns) {
      retained.addAll(p.left.buffers());
      retained.addAll(p.right.buffers());
    }
    for (ArrowBuf b : retained) {
      b.getReferenceManager().retain();
    }
    return new MultiColumnComparator(columns, leftRows, rightRows, retained);
  }

  private static int sameRowCount(int rows, ColumnLayout layout, int c, String side) {
    if (rows >= 0 && layout.valueCount != rows) {
      throw new IllegalArgumentException("column " + c + " (" + side + ") has " + layout.valueCount
          + " rows but column 0 (" + side + ") has " + rows);
    }
    return layout.valueCount;
  }

  private static boolean isFixed(ColumnPair p) {
    return p.kind >= ColumnKind.BIT && p.kind <= ColumnKind.FLOAT64;
  }

  private static boolean isVar(ColumnPair p) {
    return p.kind == ColumnKind.VAR32 || p.kind == ColumnKind.VAR64 || p.kind == ColumnKind.VIEW;
  }

  /** Number of key columns. */
  public int columnCount() {
    return columns.length;
  }

  /** True when row {@code leftRow} of the left columns equals row {@code rightRow} of the right ones. */
  public boolean equal(int leftRow, int rightRow) {
    checkOpen();
    checkRow(leftRow, leftRows, "left");
    checkRow(rightRow, rightRows, "right");
    // Variable-width columns first: their offsets-then-bytes loads (cache misses on a large build side) start
    // at once, and a pair that differs there (a hash collision) never loads its fixed-width values.
    for (ColumnPair p : varColumns) {
      if (!PairEquality.varEqual(p, leftRow, rightRow)) {
        return false;
      }
    }
    // Fixed-width columns without a branch between them: their loads are all in flight before the one
    // data-dependent branch, instead of one at a time behind branches that mispredict whenever a key
    // differs. Reading them all is safe (capacities were checked at build) and changes no answer.
    boolean equal = true;
    for (ColumnPair p : fixedColumns) {
      equal &= PairEquality.fixedEqual(p, leftRow, rightRow);
    }
    if (!equal) {
      return false;
    }
    for (ColumnPair p : otherColumns) {
      if (!PairEquality.equal(p, leftRow, rightRow)) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code out[k] = equal(leftRows[k], rightRows[k])} for {@code k < count}, evaluated column by column;
   * a pair found unequal in one column is not looked at again.
   */
  public void equalMany(int[] leftRowIds, int[] rightRowIds, int count, boolean[] out) {
    checkOpen();
    if (count < 0 || count > leftRowIds.length || count > rightRowIds.length || count > out.length) {
      throw new IndexOutOfBoundsException("count " + count + " exceeds the arrays given (" + leftRowIds.length
          + ", " + rightRowIds.length + ", " + out.length + ")");
    }
    checkRows(leftRowIds, count, leftRows, "left");
    checkRows(rightRowIds, count, rightRows, "right");
    Arrays.fill(out, 0, count, true);
    for (ColumnPair p : columns) {
      ManyEquality.andEqual(p, leftRowIds, rightRowIds, count, out);
    }
  }

  private static void checkRow(int row, int rows, String side) {
    // With zero key columns there are no rows to bound (rows == -1): any non-negative index is accepted.
    if (row < 0 || (rows >= 0 && row >= rows)) {
      throw new IndexOutOfBoundsException(side + " row " + row + " is outside [0, " + rows + ")");
    }
  }

  private static void checkRows(int[] ids, int count, int rows, String side) {
    int bad = 0;
    for (int k = 0; k < count; k++) {
      // One branch-free pass: any id outside [0, rows) sets the sign bit of bad.
      bad |= ids[k] | (rows >= 0 ? rows - 1 - ids[k] : 0);
    }
    if (bad < 0) {
      for (int k = 0; k < count; k++) {
        checkRow(ids[k], rows, side + " (pair " + k + ")");
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("MultiColumnComparator is closed");
    }
  }

  /** Releases the buffers retained at build. Idempotent. */
  @Override
  public void close() {
    if (closedOnce.compareAndSet(false, true)) {
      closed = true;
      for (ArrowBuf b : retained) {
        b.getReferenceManager().release();
      }
    }
  }
}
