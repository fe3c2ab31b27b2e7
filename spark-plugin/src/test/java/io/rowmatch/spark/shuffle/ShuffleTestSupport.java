package io.rowmatch.spark.shuffle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

import io.rowmatch.spark.arrow.RandomSparkRows;

/** The slow obvious reference: rows read value by value through Spark's own ArrowColumnVector getters. */
public final class ShuffleTestSupport {
  private ShuffleTestSupport() {}

  /** Every flat type the shuffle carries (the nested columns of RandomSparkRows' schema dropped). */
  public static StructType flatEveryType() {
    StructType s = new StructType();
    for (StructField f : RandomSparkRows.everyType(true).fields()) {
      DataType t = f.dataType();
      if (!(t instanceof ArrayType || t instanceof StructType || t instanceof MapType)) {
        s = s.add(f);
      }
    }
    return s;
  }

  /** Row r of the batch as comparable values: floats as raw bits (NaN payloads, -0.0), bytes as ByteBuffers. */
  static List<Object> row(ColumnarBatch batch, int r, StructType schema) {
    List<Object> out = new ArrayList<>();
    for (int c = 0; c < schema.fields().length; c++) {
      ColumnVector col = batch.column(c);
      // Plain ArrowColumnVector, whatever subclass the batch holds: Spark's checked reads are the reference.
      ArrowColumnVector plain = new ArrowColumnVector(((ArrowColumnVector) col).getValueVector());
      out.add(cell(plain, r, schema.fields()[c].dataType()));
    }
    return out;
  }

  static Object cell(ColumnVector v, int r, DataType t) {
    if (v.isNullAt(r)) {
      return null;
    }
    if (t instanceof BooleanType) {
      return v.getBoolean(r);
    } else if (t instanceof ByteType) {
      return v.getByte(r);
    } else if (t instanceof ShortType) {
      return v.getShort(r);
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return v.getInt(r);
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return v.getLong(r);
    } else if (t instanceof FloatType) {
      return "f" + Integer.toHexString(Float.floatToRawIntBits(v.getFloat(r)));
    } else if (t instanceof DoubleType) {
      return "d" + Long.toHexString(Double.doubleToRawLongBits(v.getDouble(r)));
    } else if (t instanceof DecimalType d) {
      return v.getDecimal(r, d.precision(), d.scale()).toJavaBigDecimal();
    } else if (t instanceof StringType) {
      return ByteBuffer.wrap(v.getUTF8String(r).getBytes());
    } else if (t instanceof BinaryType) {
      return ByteBuffer.wrap(v.getBinary(r));
    } else if (t instanceof NullType) {
      throw new AssertionError("a NullType value that is not null");
    }
    throw new IllegalArgumentException(t.simpleString());
  }
}
