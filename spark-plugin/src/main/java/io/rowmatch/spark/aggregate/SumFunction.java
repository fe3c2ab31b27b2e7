package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.LongType;

/**
 * sum over integral (bigint result and buffer), floating (double) and decimal inputs (Spark's result
 * decimal(min(p + 10, 38), s), buffer (sum, isEmpty)), in ANSI or LEGACY eval mode.
 */
public final class SumFunction implements SupportedFunction {
  public static final FunctionKernel SUM_LONG = FunctionKernel.of("SUM_LONG", SumLongKernel::new,
      SumFunction::longBuffers);
  public static final FunctionKernel SUM_DOUBLE = FunctionKernel.of("SUM_DOUBLE", SumDoubleKernel::new,
      SumFunction::doubleBuffers);
  /** Decimal input; no pass-through (an aggregate with a decimal sum never skips). */
  public static final FunctionKernel SUM_DECIMAL = FunctionKernel.of("SUM_DECIMAL", SumDecimalKernel::new, null);

  SumFunction() {} // one instance, in AggregateFunctions

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return Sum.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    Sum s = (Sum) f;
    DataType in = s.child().dataType();
    String evalMode = s.evalContext().evalMode().toString();
    if (!evalMode.equals("ANSI") && !evalMode.equals("LEGACY")) {
      throw p.refuse("sum in eval mode " + evalMode + ": " + p.sql);
    }
    boolean ansi = evalMode.equals("ANSI");
    if (in instanceof DecimalType dIn && f.dataType() instanceof DecimalType dOut) {
      // Spark's decimal sum: result decimal(min(p + 10, 38), s); buffer (sum, isEmpty).
      DecimalType expected = new DecimalType(Math.min(dIn.precision() + 10, DecimalType.MAX_PRECISION()),
          Math.min(dIn.scale(), DecimalType.MAX_SCALE()));
      if (!dOut.sameType(expected)) {
        throw p.refuse("sum over " + in.simpleString() + " with result type " + dOut.simpleString()
            + " is not supported: " + p.sql);
      }
      p.expectBuffers(dOut, BooleanType$.MODULE$);
      return p.spec(SUM_DECIMAL, p.inputs(s.child()), ansi, false, s.getContextOrNull());
    }
    FunctionKernel kernel;
    if (AggregatePlanner.integral(in) && f.dataType() instanceof LongType) {
      kernel = SUM_LONG;
    } else if (AggregatePlanner.floating(in) && f.dataType() instanceof DoubleType) {
      kernel = SUM_DOUBLE;
    } else {
      throw p.refuse("sum over " + in.simpleString() + " is not supported: " + p.sql);
    }
    p.expectBuffers(f.dataType());
    return p.spec(kernel, p.inputs(s.child()), ansi, false);
  }

  /** Integral input: 0 + the value widened to bigint (null stays null); a bigint input column is shared. */
  private static void longBuffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    ValueVector input = columns[f.inputOrdinals[0]];
    if (input instanceof BigIntVector) {
      out.add(PartialPassThrough.shared(input));
      return;
    }
    long[] longs = p.longs(rows);
    NumericColumns.readLongs(input, rows, longs);
    BigIntVector sum = (BigIntVector) p.own(f.bufferFields[0], owned);
    sum.allocateNew(rows);
    for (int i = 0; i < rows; i++) {
      if (!input.isNull(i)) {
        sum.set(i, longs[i]);
      }
    }
    sum.setValueCount(rows);
    out.add(sum);
  }

  /** Floating input: 0.0 + the value (null stays null); never shared, since Spark's 0.0 + x turns -0.0 into 0.0. */
  private static void doubleBuffers(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
      List<FieldVector> out, List<FieldVector> owned) {
    out.add(p.doublesOf(columns[f.inputOrdinals[0]], rows, f.bufferFields[0], owned, false));
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return true; // Spark's update keeps the buffer where the input is null
  }
}
