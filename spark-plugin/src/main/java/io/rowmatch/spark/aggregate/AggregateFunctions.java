package io.rowmatch.spark.aggregate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;

/**
 * The registry of aggregate functions RowmatchHashAggregate supports, by Spark's function class. Adding a
 * function: one {@link SupportedFunction} (its planning, kernels and pass-through buffers, one file), one
 * entry below, and its tests.
 */
final class AggregateFunctions {
  private AggregateFunctions() {}

  private static final List<SupportedFunction> ALL = List.of(
      new CountFunction(),
      new SumFunction(),
      new AvgFunction(),
      MinMaxFunction.MIN,
      MinMaxFunction.MAX,
      new FirstFunction(),
      new LastFunction(),
      VarianceFunction.STDDEV_POP,
      VarianceFunction.STDDEV_SAMP,
      VarianceFunction.VAR_POP,
      VarianceFunction.VAR_SAMP);

  private static final Map<Class<?>, SupportedFunction> BY_CLASS = new HashMap<>();

  static {
    for (SupportedFunction f : ALL) {
      if (BY_CLASS.put(f.sparkClass(), f) != null) {
        throw new IllegalStateException("two entries for " + f.sparkClass().getName());
      }
    }
  }

  /** Loads the registry, and so every function's kernel constants (see FunctionKernel's readResolve). */
  static void load() {}

  /** The entry for {@code f}'s class or its nearest registered superclass; null when unsupported. */
  static SupportedFunction of(AggregateFunction f) {
    for (Class<?> c = f.getClass(); c != null; c = c.getSuperclass()) {
      SupportedFunction found = BY_CLASS.get(c);
      if (found != null) {
        return found;
      }
    }
    return null;
  }
}
