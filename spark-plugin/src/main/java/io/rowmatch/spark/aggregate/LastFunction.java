package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Last;
import org.apache.spark.sql.types.BooleanType$;

/** last(e) and last(e, ignoreNulls) over any type: buffer (value, valueSet). */
public final class LastFunction implements SupportedFunction {
  public enum Kernel implements FunctionKernel {
    LAST;

    @Override
    public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
      return new LastKernel(spec, allocator, timeZone);
    }

    @Override
    public boolean passesThrough() {
      return true;
    }

    @Override
    public void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
        List<FieldVector> out, List<FieldVector> owned) {
      p.valueAndSet(f, columns, rows, out, owned);
    }
  }

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
    return p.spec(Kernel.LAST, p.inputs(last.child()), false, last.ignoreNulls());
  }
}
