package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
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
  public enum Kernel implements FunctionKernel {
    /** Integral input: partial buffer 0 + the value widened to bigint (null stays null). */
    LONG {
      @Override
      public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
        return new SumLongKernel(spec, allocator, timeZone);
      }

      @Override
      public boolean passesThrough() {
        return true;
      }

      @Override
      public void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
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
    },
    /** Floating input: partial buffer 0.0 + the value (null stays null, -0.0 becomes 0.0). */
    DOUBLE {
      @Override
      public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
        return new SumDoubleKernel(spec, allocator, timeZone);
      }

      @Override
      public boolean passesThrough() {
        return true;
      }

      @Override
      public void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
          List<FieldVector> out, List<FieldVector> owned) {
        // Not shared even for a double input: Spark's 0.0 + x turns -0.0 into 0.0.
        out.add(p.doublesOf(columns[f.inputOrdinals[0]], rows, f.bufferFields[0], owned, false));
      }
    },
    /** Decimal input; no pass-through (an aggregate with a decimal sum never skips). */
    DECIMAL {
      @Override
      public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
        return new SumDecimalKernel(spec, allocator, timeZone);
      }
    }
  }

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
      return p.spec(Kernel.DECIMAL, p.inputs(s.child()), ansi, false, s.getContextOrNull());
    }
    Kernel kernel;
    if (AggregatePlanner.integral(in) && f.dataType() instanceof LongType) {
      kernel = Kernel.LONG;
    } else if (AggregatePlanner.floating(in) && f.dataType() instanceof DoubleType) {
      kernel = Kernel.DOUBLE;
    } else {
      throw p.refuse("sum over " + in.simpleString() + " is not supported: " + p.sql);
    }
    p.expectBuffers(f.dataType());
    return p.spec(kernel, p.inputs(s.child()), ansi, false);
  }
}
