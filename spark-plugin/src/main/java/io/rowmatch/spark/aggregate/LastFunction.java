package io.rowmatch.spark.aggregate;

import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Last;
import org.apache.spark.sql.types.BooleanType$;

/** last(e) and last(e, ignoreNulls) over any type: buffer (value, valueSet). */
public final class LastFunction implements SupportedFunction {
  public static final FunctionKernel LAST = FunctionKernel.of("LAST", LastKernel::new, PartialPassThrough::valueAndSet);

  LastFunction() {} // one instance, in AggregateFunctions

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return Last.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    Last last = (Last) f;
    p.expectBuffers(last.child().dataType(), BooleanType$.MODULE$);
    // Unlike first(), Spark's last evaluates its input on every row, so a computed input is fine.
    return p.spec(LAST, p.inputs(last.child()), false, last.ignoreNulls());
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return ((Last) f).ignoreNulls();
  }
}
