package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * Spark's partial aggregation buffer of each input row on its own, as if every row were its own group:
 * what a partial aggregate emits for the rows it no longer aggregates (see {@link PartialSkipProbe}). The
 * final stage merges these buffers like any others. Each function's buffers are formed by its
 * {@link FunctionKernel} (declared in its {@link SupportedFunction}'s file), with the vectors and scratch
 * arrays this class holds; a function whose kernel does not pass through (decimal sum and avg) keeps the
 * aggregate from skipping.
 */
public final class PartialPassThrough {
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private long[] longs = new long[0];
  private double[] doubles = new double[0];

  public PartialPassThrough(BufferAllocator allocator, String timeZone, HeapAccount heap) {
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = heap;
  }

  /** Whether a Partial-mode function's buffers can be formed row by row here. */
  public static boolean supports(FunctionSpec f) {
    return !f.merge && f.kernel.passesThrough();
  }

  /**
   * Appends f's buffer columns for the batch's rows to {@code out}. Columns made here are also added to
   * {@code owned} (the caller closes them); shared input columns are valid as long as the input batch.
   */
  public void buffers(FunctionSpec f, ValueVector[] columns, int rows, List<FieldVector> out,
      List<FieldVector> owned) {
    f.kernel.passThrough(f, this, columns, rows, out, owned);
  }

  /**
   * first/last: (value, valueSet) with the value column shared; valueSet is true on every row, or with
   * ignoreNulls only on a non-null one.
   */
  static void valueAndSet(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    ValueVector input = columns[f.inputOrdinals[0]];
    out.add(shared(input));
    BitVector set = (BitVector) p.own(f.bufferFields[1], owned);
    fillBits(set, rows, f.ignoreNulls ? input : null);
    out.add(set);
  }

  /** Scratch longs for at least {@code rows} values, charged to the task's heap account. */
  long[] longs(int rows) {
    longs = GrowableState.ensure(heap, longs, rows);
    return longs;
  }

  /** Scratch doubles for at least {@code rows} values, charged to the task's heap account. */
  double[] doubles(int rows) {
    doubles = GrowableState.ensure(heap, doubles, rows);
    return doubles;
  }

  static FieldVector shared(ValueVector v) {
    if (!(v instanceof FieldVector fv)) {
      throw new IllegalStateException("input column is a " + v.getClass().getSimpleName() + ", not a FieldVector");
    }
    return fv;
  }

  /** A new vector for a buffer field, added to {@code owned} before any allocation (a failure still releases it). */
  FieldVector own(org.apache.spark.sql.types.StructField field, List<FieldVector> owned) {
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    owned.add(v);
    return v;
  }

  /**
   * The input as doubles added to 0.0, as Spark's update from the initial buffer computes it (so -0.0 becomes
   * 0.0): null stays null, or (avg's sum) becomes 0.0 in a non-null column.
   */
  FieldVector doublesOf(ValueVector input, int rows, org.apache.spark.sql.types.StructField field,
      List<FieldVector> owned, boolean nullAsZero) {
    doubles = GrowableState.ensure(heap, doubles, rows);
    longs = GrowableState.ensure(heap, longs, rows);
    NumericColumns.readDoubles(input, rows, doubles, longs);
    Float8Vector out = (Float8Vector) own(field, owned);
    out.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      if (!input.isNull(i)) {
        out.set(i, 0.0 + doubles[i]);
      } else if (nullAsZero) {
        out.set(i, 0.0);
      }
    }
    out.setValueCount(rows);
    return out;
  }

  /** A non-null boolean column: true everywhere, or true where {@code validOf} is non-null. */
  private static void fillBits(BitVector set, int rows, ValueVector validOf) {
    set.allocateNew(rows);
    int bytes = ArrowCopy.validityBytes(rows);
    set.getValidityBuffer().setOne(0, bytes);
    if (validOf == null || validOf.getNullCount() == 0) {
      set.getDataBuffer().setOne(0, bytes);
    } else {
      for (int i = 0; i < rows; i++) {
        if (!validOf.isNull(i)) {
          BitVectorHelper.setBit(set.getDataBuffer(), i);
        }
      }
    }
    set.setValueCount(rows);
  }
}
