package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;

/**
 * avg over decimal(p, s) as Spark's Average: buffer (sum decimal(min(p + 10, 38), s), count bigint), sum
 * starting at 0 and nulls adding nothing; result decimal(min(p + 4, 38), min(s + 4, 38)).
 *
 * <p>As for sum, a running sum that no longer fits the buffer precision becomes null for good (Spark's
 * UnsafeRow buffer stores null), and a merged null sum stays null. The result is null for count 0;
 * an overflowed sum raises Spark's overflow error under ANSI (suggesting try_avg) and is null otherwise;
 * the division is the exact quotient rounded half up at the result scale, in longs while the sum fits
 * ({@link DecimalSums#quotient}), by Spark's own Decimal otherwise (sum / count, then toPrecision with HALF_UP),
 * so the digits are the same as Spark's.
 */
final class AvgDecimalKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private final int sumPrecision;
  private final int sumScale;
  /** The running sums, each group's count of values kept next to its sum. */
  private final DecimalSums sums;

  AvgDecimalKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
    DecimalType t = (DecimalType) spec.bufferFields[0].dataType();
    this.sumPrecision = t.precision();
    this.sumScale = t.scale();
    this.sums = new DecimalSums(heap, sumPrecision, sumScale);
  }

  private void grow(int groupCount) {
    sums.grow(groupCount);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    grow(groupCount);
    DecimalVector input = (DecimalVector) columns[spec.inputOrdinals[0]];
    if (spec.merge) {
      BigIntVector count = (BigIntVector) columns[spec.inputOrdinals[1]];
      boolean countNulls = count.getNullCount() > 0;
      boolean sumNulls = input.getNullCount() > 0;
      for (int i = 0; i < rows; i++) {
        int g = groupIds[i];
        if (!countNulls || !count.isNull(i)) {
          sums.addCount(g, count.get(i));
        }
        if (sumNulls && input.isNull(i)) {
          sums.markOverflowed(g);
        } else {
          sums.add(g, input, i);
        }
      }
      return;
    }
    sums.addRows(input, rows, groupIds, true);
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    grow(groupCount);
    DecimalVector sum = (DecimalVector) FunctionSpec.newVector(spec.bufferFields[0], timeZone, allocator);
    BigIntVector count = (BigIntVector) FunctionSpec.newVector(spec.bufferFields[1], timeZone, allocator);
    count.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      count.setSafe(g, sums.count(g));
    }
    sums.writeBuffer(sum, groupCount);
    count.setValueCount(groupCount);
    out.add(sum);
    out.add(count);
  }

  @Override
  public FieldVector result(int groupCount) {
    grow(groupCount);
    DecimalType t = (DecimalType) spec.resultField.dataType();
    DecimalVector v = (DecimalVector) FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    try {
      v.allocateNew(groupCount);
      boolean nullOnOverflow = !spec.ansi;
      for (int g = 0; g < groupCount; g++) {
        long n = sums.count(g);
        if (n == 0) {
          v.setNull(g);
          continue;
        }
        if (sums.overflowed(g)) {
          if (!nullOnOverflow) {
            throw QueryExecutionErrors.overflowInSumOfDecimalError(spec.errorContext, "try_avg");
          }
          v.setNull(g);
          continue;
        }
        long unscaled = sums.quotient(g, n, t.precision(), t.scale());
        if (unscaled != Long.MIN_VALUE) {
          v.setSafe(g, unscaled);
          continue;
        }
        Decimal quotient = Decimal.apply(sums.value(g)).$div(Decimal.apply(n));
        Decimal r = quotient == null ? null
            : quotient.toPrecision(t.precision(), t.scale(), Decimal.ROUND_HALF_UP(), nullOnOverflow,
                spec.errorContext);
        if (r == null) {
          v.setNull(g);
        } else {
          v.setSafe(g, r.toJavaBigDecimal());
        }
      }
      v.setValueCount(groupCount);
      return v;
    } catch (RuntimeException e) {
      v.close();
      throw e;
    }
  }

  @Override
  public void close() {
    heap.close();
  }
}
