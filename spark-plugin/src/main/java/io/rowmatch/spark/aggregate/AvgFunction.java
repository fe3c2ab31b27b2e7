package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.DoubleType$;
import org.apache.spark.sql.types.LongType$;

/**
 * avg over integral and floating inputs (double sum, bigint count, double result) and over decimals (Spark's
 * sum decimal(min(p + 10, 38), s) and result decimal(min(p + 4, 38), min(s + 4, 38)), ANSI or LEGACY).
 */
public final class AvgFunction implements SupportedFunction {
  public static final FunctionKernel AVG_DOUBLE = FunctionKernel.of("AVG_DOUBLE", AvgDoubleKernel::new,
      AvgFunction::doubleBuffers);
  /** Decimal input; no pass-through (an aggregate with a decimal avg never skips). */
  public static final FunctionKernel AVG_DECIMAL = FunctionKernel.of("AVG_DECIMAL", AvgDecimalKernel::new, null);

  AvgFunction() {} // one instance, in AggregateFunctions

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return Average.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    Average a = (Average) f;
    DataType in = a.child().dataType();
    if (in instanceof DecimalType dIn && f.dataType() instanceof DecimalType dOut
        && a.sumDataType() instanceof DecimalType dSum) {
      int max = DecimalType.MAX_PRECISION();
      boolean sparkTypes = dSum.sameType(new DecimalType(Math.min(dIn.precision() + 10, max), Math.min(dIn.scale(), max)))
          && dOut.sameType(new DecimalType(Math.min(dIn.precision() + 4, max), Math.min(dIn.scale() + 4, max)));
      String evalMode = a.evalMode().toString();
      if (!sparkTypes || !(evalMode.equals("ANSI") || evalMode.equals("LEGACY"))) {
        throw p.refuse("avg over " + in.simpleString() + " with result " + dOut.simpleString() + " in eval mode "
            + evalMode + " is not supported: " + p.sql);
      }
      p.expectBuffers(dSum, LongType$.MODULE$);
      return p.spec(AVG_DECIMAL, p.inputs(a.child()), evalMode.equals("ANSI"), false, a.getContextOrNull());
    }
    if (!(AggregatePlanner.integral(in) || AggregatePlanner.floating(in)) || !(a.sumDataType() instanceof DoubleType)
        || !(f.dataType() instanceof DoubleType)) {
      throw p.refuse("avg over " + in.simpleString() + " is not supported: " + p.sql);
    }
    p.expectBuffers(DoubleType$.MODULE$, LongType$.MODULE$);
    return p.spec(AVG_DOUBLE, p.inputs(a.child()), false, false);
  }

  /** Integral or floating input: 0.0 + the value as double (0.0 for null), and a count of 1 (0 for null). */
  private static void doubleBuffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    ValueVector input = columns[f.inputOrdinals[0]];
    out.add(p.doublesOf(input, rows, f.bufferFields[0], owned, true));
    BigIntVector count = (BigIntVector) p.own(f.bufferFields[1], owned);
    count.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      count.set(i, input.isNull(i) ? 0L : 1L);
    }
    count.setValueCount(rows);
    out.add(count);
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return true; // Spark's update keeps sum and count where the input is null
  }
}
