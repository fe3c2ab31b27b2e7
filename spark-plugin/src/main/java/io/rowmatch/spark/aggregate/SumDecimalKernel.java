package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.types.DecimalType;

/**
 * sum over decimal(p, s) with Spark's decimal semantics: the result (and buffer) type is
 * decimal(min(p + 10, 38), s); the buffer is (sum, isEmpty), sum starting at 0 and isEmpty true.
 *
 * <p>Overflow is tracked as Spark's HashAggregate does it: the buffer lives in an UnsafeRow, and writing a
 * decimal wider than the buffer precision there stores null, so once a running sum no longer fits, the
 * group's sum is null for good (a later negative value does not bring it back). A merged buffer is null
 * when either side is non-empty with a null sum. At the end an empty group is null, an overflowed one
 * raises Spark's overflow-in-sum error under ANSI and is null otherwise. The running sums are
 * {@link DecimalSums}: exact, in longs while they fit.
 */
final class SumDecimalKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private final int precision;
  private final int scale;
  /** The running sums; a group's count there is non-zero once it is not empty (!isEmpty). */
  private final DecimalSums sums;

  SumDecimalKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
    DecimalType t = (DecimalType) spec.resultField.dataType();
    this.precision = t.precision();
    this.scale = t.scale();
    this.sums = new DecimalSums(heap, precision, scale);
  }

  private void grow(int groupCount) {
    sums.grow(groupCount);
  }

  private boolean seen(int g) {
    return sums.count(g) != 0;
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    grow(groupCount);
    if (spec.merge) {
      merge((DecimalVector) columns[spec.inputOrdinals[0]], (BitVector) columns[spec.inputOrdinals[1]], rows,
          groupIds);
      return;
    }
    sums.addRows((DecimalVector) columns[spec.inputOrdinals[0]], rows, groupIds, true);
  }

  private void merge(DecimalVector sum, BitVector isEmpty, int rows, int[] groupIds) {
    for (int i = 0; i < rows; i++) {
      int g = groupIds[i];
      boolean inEmpty = isEmpty.isNull(i) || isEmpty.get(i) != 0;
      if (!inEmpty) {
        sums.addCount(g, 1);
      }
      if (!inEmpty && sum.isNull(i)) {
        sums.markOverflowed(g); // the other side overflowed: null whatever comes after
        continue;
      }
      if (!sum.isNull(i)) {
        sums.add(g, sum, i);
      }
    }
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    grow(groupCount);
    DecimalVector sum = (DecimalVector) FunctionSpec.newVector(spec.bufferFields[0], timeZone, allocator);
    BitVector isEmpty = (BitVector) FunctionSpec.newVector(spec.bufferFields[1], timeZone, allocator);
    isEmpty.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      isEmpty.setSafe(g, seen(g) ? 0 : 1);
    }
    sums.writeBuffer(sum, groupCount);
    isEmpty.setValueCount(groupCount);
    out.add(sum);
    out.add(isEmpty);
  }

  @Override
  public FieldVector result(int groupCount) {
    grow(groupCount);
    DecimalVector v = (DecimalVector) FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    try {
      v.allocateNew(groupCount);
      for (int g = 0; g < groupCount; g++) {
        if (!seen(g)) {
          v.setNull(g);
        } else if (sums.overflowed(g)) {
          if (spec.ansi) {
            throw QueryExecutionErrors.overflowInSumOfDecimalError(spec.errorContext, "try_sum");
          }
          v.setNull(g);
        } else {
          v.setSafe(g, sums.value(g));
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
