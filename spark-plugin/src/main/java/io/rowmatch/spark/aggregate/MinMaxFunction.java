package io.rowmatch.spark.aggregate;

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
 * of the input type.
 */
public final class MinMaxFunction implements SupportedFunction {
  static final MinMaxFunction MIN = new MinMaxFunction(false);
  static final MinMaxFunction MAX = new MinMaxFunction(true);

  public static final FunctionKernel MIN_LONG = kernel("MIN_LONG", (s, a, t) -> new MinMaxLongKernel(s, a, t, false));
  public static final FunctionKernel MAX_LONG = kernel("MAX_LONG", (s, a, t) -> new MinMaxLongKernel(s, a, t, true));
  public static final FunctionKernel MIN_DOUBLE =
      kernel("MIN_DOUBLE", (s, a, t) -> new MinMaxDoubleKernel(s, a, t, false));
  public static final FunctionKernel MAX_DOUBLE =
      kernel("MAX_DOUBLE", (s, a, t) -> new MinMaxDoubleKernel(s, a, t, true));
  public static final FunctionKernel MIN_DECIMAL128 =
      kernel("MIN_DECIMAL128", (s, a, t) -> new MinMaxDecimal128Kernel(s, a, t, false));
  public static final FunctionKernel MAX_DECIMAL128 =
      kernel("MAX_DECIMAL128", (s, a, t) -> new MinMaxDecimal128Kernel(s, a, t, true));
  public static final FunctionKernel MIN_BYTES = kernel("MIN_BYTES", (s, a, t) -> new MinMaxBytesKernel(s, a, t, false));
  public static final FunctionKernel MAX_BYTES = kernel("MAX_BYTES", (s, a, t) -> new MinMaxBytesKernel(s, a, t, true));

  /** The buffer is of the input type: a row's partial buffer is its input column itself, shared. */
  private static FunctionKernel kernel(String name, FunctionKernel.Factory factory) {
    return FunctionKernel.of(name, factory,
        (f, p, columns, rows, out, owned) -> out.add(PartialPassThrough.shared(columns[f.inputOrdinals[0]])));
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
    FunctionKernel kernel;
    if (AggregatePlanner.integral(in) || in instanceof DateType || in instanceof TimestampType
        || in instanceof TimestampNTZType || in instanceof BooleanType
        || (in instanceof DecimalType d && d.precision() <= Decimal.MAX_LONG_DIGITS())) {
      kernel = isMax ? MAX_LONG : MIN_LONG;
    } else if (AggregatePlanner.floating(in)) {
      kernel = isMax ? MAX_DOUBLE : MIN_DOUBLE;
    } else if (in instanceof DecimalType) {
      kernel = isMax ? MAX_DECIMAL128 : MIN_DECIMAL128;
    } else if (in instanceof BinaryType || (in instanceof StringType st && st.supportsBinaryOrdering())) {
      // Other collations order by collation keys, not bytes: those stay vanilla.
      kernel = isMax ? MAX_BYTES : MIN_BYTES;
    } else {
      throw p.refuse((isMax ? "max" : "min") + " over " + in.simpleString() + " is not supported: " + p.sql);
    }
    p.expectBuffers(in);
    return p.spec(kernel, p.inputs(child), false, false);
  }

  @Override
  public boolean skipsNullInput(AggregateFunction f) {
    return true; // Spark's update keeps the buffer where the input is null
  }
}
