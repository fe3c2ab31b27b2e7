package io.rowmatch.spark.aggregate;

import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.First;
import org.apache.spark.sql.types.BooleanType$;

/**
 * first(e) and first(e, ignoreNulls) over any type: buffer (value, valueSet). Its input must be a column of
 * the child (Spark's first does not evaluate its input on every row, so a computed input could raise an
 * error Spark would not).
 */
public final class FirstFunction implements SupportedFunction {
  public static final FunctionKernel FIRST = FunctionKernel.of("FIRST", FirstKernel::new, PartialPassThrough::valueAndSet);

  FirstFunction() {} // one instance, in AggregateFunctions

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return First.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    First first = (First) f;
    p.expectBuffers(first.child().dataType(), BooleanType$.MODULE$);
    int[] inputs = p.merge ? p.mergeInputs : new int[] {p.column(first.child())};
    return p.spec(FIRST, inputs, false, first.ignoreNulls());
  }
}
