package io.rowmatch.spark.aggregate;

import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;

/**
 * One Spark aggregate function that RowmatchHashAggregate runs: it plans the function (its spec, or the
 * reason it stays vanilla) and names the kernels that execute it ({@link FunctionKernel}, which also form its
 * partial pass-through buffers). Registered once, by Spark's class, in {@link AggregateFunctions}.
 */
interface SupportedFunction {
  /** The Spark function class this entry plans (subclasses included, as an instanceof test would). */
  Class<? extends AggregateFunction> sparkClass();

  /**
   * The spec of {@code f} in the aggregate being planned, or a refusal: {@code throw p.refuse(reason)} (the
   * context's helpers refuse the same way). Never a spec that might give an answer other than Spark's.
   */
  FunctionSpec plan(AggregateFunction f, FunctionPlanning p);

  /**
   * Whether a row whose first input is null leaves {@code f}'s buffer as it was, as a row its FILTER clause
   * rejects does: then {@code f(x) FILTER (WHERE c)} is planned as {@code f(IF(c, x, NULL))} (see
   * AggregatePlanner). False unless the entry says so.
   */
  default boolean skipsNullInput(AggregateFunction f) {
    return false;
  }
}
