package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.First;
import org.apache.spark.sql.types.BooleanType$;

/**
 * first(e) and first(e, ignoreNulls) over any type: buffer (value, valueSet). Its input must be a column of
 * the child (Spark's first does not evaluate its input on every row, so a computed input could raise an
 * error Spark would not).
 */
public final class FirstFunction implements SupportedFunction {
  public enum Kernel implements FunctionKernel {
    FIRST;

    @Override
    public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
      return new FirstKernel(spec, allocator, timeZone);
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
    return p.spec(Kernel.FIRST, inputs, false, first.ignoreNulls());
  }
}
