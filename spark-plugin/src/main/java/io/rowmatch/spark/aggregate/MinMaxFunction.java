package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/**
 * min and max (two entries, one per Spark class) over integral, date, timestamp, boolean and decimal(<= 18)
 * values as longs, floating values, wider decimals, and binary or binary-ordered strings. Buffer: the value,
 * of the input type; so a row's partial buffer is its input column itself, shared.
 */
public final class MinMaxFunction implements SupportedFunction {
  static final MinMaxFunction MIN = new MinMaxFunction(false);
  static final MinMaxFunction MAX = new MinMaxFunction(true);

  public enum Kernel implements FunctionKernel {
    MIN_LONG, MAX_LONG, MIN_DOUBLE, MAX_DOUBLE, MIN_DECIMAL128, MAX_DECIMAL128, MIN_BYTES, MAX_BYTES;

    private boolean isMax() {
      return name().startsWith("MAX");
    }

    @Override
    public AggregateKernel newKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
      return switch (this) {
        case MIN_LONG, MAX_LONG -> new MinMaxLongKernel(spec, allocator, timeZone, isMax());
        case MIN_DOUBLE, MAX_DOUBLE -> new MinMaxDoubleKernel(spec, allocator, timeZone, isMax());
        case MIN_DECIMAL128, MAX_DECIMAL128 -> new MinMaxDecimal128Kernel(spec, allocator, timeZone, isMax());
        case MIN_BYTES, MAX_BYTES -> new MinMaxBytesKernel(spec, allocator, timeZone, isMax());
      };
    }

    @Override
    public boolean passesThrough() {
      return true;
    }

    @Override
    public void passThrough(FunctionSpec f, PartialPassThrough p, ValueVector[] columns, int rows,
        List<FieldVector> out, List<FieldVector> owned) {
      out.add(PartialPassThrough.shared(columns[f.inputOrdinals[0]])); // buffer type is the input type
    }
  }

  private final boolean isMax;

  private MinMaxFunction(boolean isMax) {
    this.isMax = isMax;
  }

  @Override
  public Class<? extends AggregateFunction> sparkClass() {
    return isMax ? Max.class : Min.class;
  }

  @Override
  public FunctionSpec plan(AggregateFunction f, FunctionPlanning p) {
    Expression child = isMax ? ((Max) f).child() : ((Min) f).child();
    DataType in = child.dataType();
    Kernel kernel;
    if (AggregatePlanner.integral(in) || in instanceof DateType || in instanceof TimestampType
        || in instanceof TimestampNTZType || in instanceof BooleanType
        || (in instanceof DecimalType d && d.precision() <= Decimal.MAX_LONG_DIGITS())) {
      kernel = isMax ? Kernel.MAX_LONG : Kernel.MIN_LONG;
    } else if (AggregatePlanner.floating(in)) {
      kernel = isMax ? Kernel.MAX_DOUBLE : Kernel.MIN_DOUBLE;
    } else if (in instanceof DecimalType) {
      kernel = isMax ? Kernel.MAX_DECIMAL128 : Kernel.MIN_DECIMAL128;
    } else if (in instanceof BinaryType || (in instanceof StringType st && st.supportsBinaryOrdering())) {
      // Other collations order by collation keys, not bytes: those stay vanilla.
      kernel = isMax ? Kernel.MAX_BYTES : Kernel.MIN_BYTES;
    } else {
      throw p.refuse((isMax ? "max" : "min") + " over " + in.simpleString() + " is not supported: " + p.sql);
    }
    p.expectBuffers(in);
    return p.spec(kernel, p.inputs(child), false, false);
  }
}
