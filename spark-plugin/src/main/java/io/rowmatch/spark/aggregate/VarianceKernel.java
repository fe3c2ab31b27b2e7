package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.ValueVector;

/**
 * The state of {@link VarianceFunction}: per group (n, avg, m2) side by side in one double array, starting at
 * Spark's initial (0.0, 0.0, 0.0). Rows are folded in with Spark's update (Welford's step), buffers with its
 * merge, each as the same sequence of double operations as CentralMomentAgg's expressions.
 */
final class VarianceKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final VarianceFunction.Result result;
  private final boolean nanOnOneRow;
  private final HeapAccount heap;
  /** n, avg, m2 of group g at 3g, 3g + 1, 3g + 2. */
  private double[] state = new double[0];
  private double[] x = new double[0];
  private double[] avgs = new double[0];
  private double[] m2s = new double[0];
  private long[] scratch = new long[0];

  VarianceKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, VarianceFunction.Result result,
      boolean nanOnOneRow) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.result = result;
    this.nanOnOneRow = nanOnOneRow;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  /** Spark's updateExpressions for a non-null value x. */
  static void update(double[] s, int at, double x) {
    double n = s[at];
    double avg = s[at + 1];
    double newN = n + 1.0;
    double delta = x - avg;
    double deltaN = delta / newN;
    s[at] = newN;
    s[at + 1] = avg + deltaN;
    s[at + 2] = s[at + 2] + delta * (delta - deltaN);
  }

  /** Spark's mergeExpressions: the group's buffer (left) with another buffer (right). */
  static void merge(double[] s, int at, double n2, double avg2, double m22) {
    double n1 = s[at];
    double avg1 = s[at + 1];
    double m21 = s[at + 2];
    double newN = n1 + n2;
    double delta = avg2 - avg1;
    double deltaN = newN == 0.0 ? 0.0 : delta / newN;
    s[at] = newN;
    s[at + 1] = avg1 + deltaN * n2;
    s[at + 2] = m21 + m22 + delta * deltaN * n1 * n2;
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    ensure(groupCount);
    x = GrowableState.ensure(heap, x, rows);
    scratch = GrowableState.ensure(heap, scratch, rows);
    ValueVector first = columns[spec.inputOrdinals[0]];
    NumericColumns.readDoubles(first, rows, x, scratch);
    if (!spec.merge) {
      boolean anyNull = first.getNullCount() > 0;
      for (int i = 0; i < rows; i++) {
        if (!anyNull || !first.isNull(i)) {
          update(state, 3 * groupIds[i], x[i]);
        }
      }
      return;
    }
    // The buffer columns are not nullable in Spark's schema; a null there would be a bug upstream.
    avgs = GrowableState.ensure(heap, avgs, rows);
    m2s = GrowableState.ensure(heap, m2s, rows);
    NumericColumns.readDoubles(columns[spec.inputOrdinals[1]], rows, avgs, scratch);
    NumericColumns.readDoubles(columns[spec.inputOrdinals[2]], rows, m2s, scratch);
    for (int i = 0; i < rows; i++) {
      merge(state, 3 * groupIds[i], x[i], avgs[i], m2s[i]);
    }
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    ensure(groupCount);
    for (int b = 0; b < 3; b++) {
      Float8Vector v = (Float8Vector) FunctionSpec.newVector(spec.bufferFields[b], timeZone, allocator);
      out.add(v);
      v.allocateNew(groupCount);
      for (int g = 0; g < groupCount; g++) {
        v.set(g, state[3 * g + b]);
      }
      v.setValueCount(groupCount);
    }
  }

  @Override
  public FieldVector result(int groupCount) {
    ensure(groupCount);
    Float8Vector v = (Float8Vector) FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    v.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      double n = state[3 * g];
      double m2 = state[3 * g + 2];
      if (n == 0.0) {
        continue; // null
      }
      switch (result) {
        case STDDEV_POP -> v.set(g, Math.sqrt(m2 / n));
        case VAR_POP -> v.set(g, m2 / n);
        case STDDEV_SAMP, VAR_SAMP -> {
          if (n == 1.0) {
            if (nanOnOneRow) {
              v.set(g, Double.NaN);
            }
          } else {
            double variance = m2 / (n - 1.0);
            v.set(g, result == VarianceFunction.Result.STDDEV_SAMP ? Math.sqrt(variance) : variance);
          }
        }
      }
    }
    v.setValueCount(groupCount);
    return v;
  }

  private void ensure(int groupCount) {
    state = GrowableState.ensure(heap, state, 3 * groupCount);
  }

  @Override
  public void close() {
    heap.close();
  }
}
