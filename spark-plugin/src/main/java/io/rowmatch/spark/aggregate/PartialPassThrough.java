package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;

/**
 * Spark's partial aggregation buffer of each input row on its own, as if every row were its own group:
 * what a partial aggregate emits for the rows it no longer aggregates (see {@link PartialSkipProbe}). The
 * final stage merges these buffers like any others. Values are the same as Spark's update expressions give
 * from the initial buffer: first/last (value, valueSet), min/max (value), count (1, or 0 when an input is
 * null), sum over integral/floating (0 + the value widened: null stays null, -0.0 becomes 0.0), avg over
 * integral/floating (0.0 + the value as double, or 0.0 for null; count 1 or 0). Where the buffer column is the input column itself it is
 * shared, not copied. Decimal sum and avg are not supported (the aggregate then never skips).
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
    if (f.merge) {
      return false;
    }
    switch (f.kind) {
      case FIRST:
      case LAST:
      case MIN_LONG:
      case MAX_LONG:
      case MIN_DOUBLE:
      case MAX_DOUBLE:
      case MIN_DECIMAL128:
      case MAX_DECIMAL128:
      case MIN_BYTES:
      case MAX_BYTES:
      case COUNT:
      case SUM_LONG:
      case SUM_DOUBLE:
      case AVG_DOUBLE:
        return true;
      default:
        return false;
    }
  }

  /**
   * Appends f's buffer columns for the batch's rows to {@code out}. Columns made here are also added to
   * {@code owned} (the caller closes them); shared input columns are valid as long as the input batch.
   */
  public void buffers(FunctionSpec f, ValueVector[] columns, int rows, List<FieldVector> out,
      List<FieldVector> owned) {
    switch (f.kind) {
      case FIRST:
      case LAST: {
        ValueVector input = columns[f.inputOrdinals[0]];
        out.add(shared(input));
        BitVector set = (BitVector) own(f.bufferFields[1], owned);
        // valueSet: every row sets the buffer, or with ignoreNulls only a non-null one.
        fillBits(set, rows, f.ignoreNulls ? input : null);
        out.add(set);
        return;
      }
      case MIN_LONG:
      case MAX_LONG:
      case MIN_DOUBLE:
      case MAX_DOUBLE:
      case MIN_DECIMAL128:
      case MAX_DECIMAL128:
      case MIN_BYTES:
      case MAX_BYTES:
        out.add(shared(columns[f.inputOrdinals[0]])); // buffer type is the input type
        return;
      case COUNT:
        out.add(count(f, columns, rows, owned));
        return;
      case SUM_LONG: {
        ValueVector input = columns[f.inputOrdinals[0]];
        if (input instanceof BigIntVector) {
          out.add(shared(input));
          return;
        }
        longs = GrowableState.ensure(heap, longs, rows);
        NumericColumns.readLongs(input, rows, longs);
        BigIntVector sum = (BigIntVector) own(f.bufferFields[0], owned);
        sum.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          if (!input.isNull(i)) {
            sum.set(i, longs[i]);
          }
        }
        sum.setValueCount(rows);
        out.add(sum);
        return;
      }
      case SUM_DOUBLE: {
        // Not shared even for a double input: Spark's 0.0 + x turns -0.0 into 0.0.
        out.add(doublesOf(columns[f.inputOrdinals[0]], rows, f.bufferFields[0], owned, false));
        return;
      }
      case AVG_DOUBLE: {
        ValueVector input = columns[f.inputOrdinals[0]];
        out.add(doublesOf(input, rows, f.bufferFields[0], owned, true));
        BigIntVector count = (BigIntVector) own(f.bufferFields[1], owned);
        count.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          count.set(i, input.isNull(i) ? 0L : 1L);
        }
        count.setValueCount(rows);
        out.add(count);
        return;
      }
      default:
        throw new IllegalStateException("no pass-through for " + f.description);
    }
  }

  private static FieldVector shared(ValueVector v) {
    if (!(v instanceof FieldVector fv)) {
      throw new IllegalStateException("input column is a " + v.getClass().getSimpleName() + ", not a FieldVector");
    }
    return fv;
  }

  private FieldVector own(org.apache.spark.sql.types.StructField field, List<FieldVector> owned) {
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    owned.add(v); // before any allocation, so a failure still releases it
    return v;
  }

  /** count: 1 where every input is non-null (count(*) has none), else 0; never null. */
  private FieldVector count(FunctionSpec f, ValueVector[] columns, int rows, List<FieldVector> owned) {
    BigIntVector c = (BigIntVector) own(f.bufferFields[0], owned);
    c.allocateNew(rows);
    boolean anyNull = false;
    for (int in : f.inputOrdinals) {
      anyNull |= columns[in].getNullCount() > 0;
    }
    for (int i = 0; i < rows; i++) {
      long one = 1L;
      if (anyNull) {
        for (int in : f.inputOrdinals) {
          if (columns[in].isNull(i)) {
            one = 0L;
            break;
          }
        }
      }
      c.set(i, one);
    }
    c.setValueCount(rows);
    return c;
  }

  /**
   * The input as doubles added to 0.0, as Spark's update from the initial buffer computes it (so -0.0 becomes
   * 0.0): null stays null, or (avg's sum) becomes 0.0 in a non-null column.
   */
  private FieldVector doublesOf(ValueVector input, int rows, org.apache.spark.sql.types.StructField field,
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
    int bytes = BitVectorHelper.getValidityBufferSize(rows);
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
