package io.rowmatch.spark.arrow;

import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * How a value of each Arrow vector that Spark's type mapping (ArrowUtils) produces is written from Spark's
 * representation: int tags resolved once per column, so the copy loops switch on an int instead of calling
 * a writer object per value.
 */
final class SparkArrowKind {
  static final int BOOL = 0;
  static final int BYTE = 1;
  static final int SHORT = 2;
  /** int and date (days). */
  static final int INT = 3;
  /** long and both timestamps (microseconds). */
  static final int LONG = 4;
  static final int FLOAT = 5;
  static final int DOUBLE = 6;
  /** A decimal of at most 18 digits: Spark holds its unscaled value in a long (or an int up to 9 digits). */
  static final int DECIMAL_LONG = 7;
  static final int DECIMAL_WIDE = 8;
  /** string and binary. */
  static final int VAR = 9;
  static final int NULL = 10;
  /** struct, array, map: written by Spark's own ArrowFieldWriter. */
  static final int NESTED = 11;

  /** Decimal.MAX_LONG_DIGITS. */
  static final int MAX_LONG_DIGITS = 18;
  /** Decimal.MAX_INT_DIGITS: column vectors keep decimals of at most 9 digits as ints. */
  static final int MAX_INT_DIGITS = 9;

  private SparkArrowKind() {}

  static int of(FieldVector v) {
    if (v instanceof BitVector) {
      return BOOL;
    } else if (v instanceof TinyIntVector) {
      return BYTE;
    } else if (v instanceof SmallIntVector) {
      return SHORT;
    } else if (v instanceof IntVector || v instanceof DateDayVector) {
      return INT;
    } else if (v instanceof BigIntVector || v instanceof TimeStampMicroTZVector
        || v instanceof TimeStampMicroVector) {
      return LONG;
    } else if (v instanceof Float4Vector) {
      return FLOAT;
    } else if (v instanceof Float8Vector) {
      return DOUBLE;
    } else if (v instanceof DecimalVector d) {
      return d.getPrecision() <= MAX_LONG_DIGITS ? DECIMAL_LONG : DECIMAL_WIDE;
    } else if (v instanceof VarCharVector || v instanceof VarBinaryVector) {
      return VAR;
    } else if (v instanceof NullVector) {
      return NULL;
    }
    return NESTED;
  }
}
