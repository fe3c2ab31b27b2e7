package io.rowmatch.spark.aggregate;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.types.LongType$;
import scala.jdk.javaapi.CollectionConverters;

/** count(*) and count(e1, ..., ek): buffer (count bigint). Kernel: {@link CountKernel}. */
public final class CountFunction implements SupportedFunction {
  public static final FunctionKernel COUNT = FunctionKernel.of("COUNT", CountKernel::new, CountFunction::buffers);

  CountFunction() {} // one instance, in AggregateFunctions

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return Count.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    p.expectBuffers(LongType$.MODULE$);
    if (p.merge) {
      return p.spec(COUNT, p.mergeInputs, false, false);
    }
    List<Integer> inputs = new ArrayList<>();
    for (Expression child : CollectionConverters.asJava(((Count) f).children())) {
      if (child instanceof Literal lit) {
        if (lit.value() == null) {
          throw p.refuse("count of a NULL literal: " + p.sql);
        }
        continue; // a non-null literal never stops a row from counting
      }
      inputs.add(p.input(child));
    }
    return p.spec(COUNT, inputs.stream().mapToInt(Integer::intValue).toArray(), false, false);
  }

  /** count: 1 where every input is non-null (count(*) has none), else 0; never null. */
  private static void buffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    BigIntVector c = (BigIntVector) p.own(f.bufferFields[0], owned);
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
    out.add(c);
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return true; // a null in any input keeps the row from counting
  }
}
