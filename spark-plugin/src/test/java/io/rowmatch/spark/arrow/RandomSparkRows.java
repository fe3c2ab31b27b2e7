package io.rowmatch.spark.arrow;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.util.ArrayBasedMapData;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
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
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.ArrayEquals;

/** Random Spark rows of every type the plugin carries: nulls, NaN payloads, -0.0, multibyte strings, nesting. */
public final class RandomSparkRows {
  private RandomSparkRows() {}

  public static StructType everyType(boolean withNullType) {
    DataType[] types = {
        DataTypes.BooleanType, DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
        DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DataTypes.createDecimalType(9, 2),
        DataTypes.createDecimalType(18, 0), DataTypes.createDecimalType(19, 3),
        DataTypes.createDecimalType(38, 10), DataTypes.StringType, DataTypes.BinaryType, DataTypes.DateType,
        DataTypes.TimestampType, DataTypes.TimestampNTZType, withNullType ? DataTypes.NullType : DataTypes.ByteType,
        DataTypes.createArrayType(DataTypes.IntegerType),
        new StructType().add("a", DataTypes.StringType).add("b", DataTypes.DoubleType),
        DataTypes.createMapType(DataTypes.StringType, DataTypes.LongType),
        DataTypes.StringType};
    StructType s = new StructType();
    for (int i = 0; i < types.length; i++) {
      s = s.add("c" + i, types[i], true);
    }
    return s;
  }

  public static Object value(DataType t, Random r) {
    if (r.nextInt(6) == 0 || t instanceof NullType) {
      return null;
    }
    if (t instanceof BooleanType) {
      return r.nextBoolean();
    } else if (t instanceof ByteType) {
      return (byte) r.nextInt();
    } else if (t instanceof ShortType) {
      return (short) r.nextInt();
    } else if (t instanceof IntegerType || t instanceof DateType) {
      return pick(r, 0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, r.nextInt());
    } else if (t instanceof LongType || t instanceof TimestampType || t instanceof TimestampNTZType) {
      return pick(r, 0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, r.nextLong());
    } else if (t instanceof FloatType) {
      return pick(r, 0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7fc00001), Float.NEGATIVE_INFINITY,
          r.nextFloat() * 1e6f - 5e5f);
    } else if (t instanceof DoubleType) {
      return pick(r, 0.0, -0.0, Double.NaN, Double.longBitsToDouble(0xfff8000000000123L),
          Double.POSITIVE_INFINITY, r.nextGaussian() * 1e9);
    } else if (t instanceof DecimalType d) {
      BigInteger bound = BigInteger.TEN.pow(d.precision());
      BigInteger unscaled = new BigInteger(bound.bitLength() + 2, r).mod(bound);
      if (r.nextBoolean()) {
        unscaled = unscaled.negate();
      }
      if (r.nextInt(8) == 0) {
        unscaled = bound.subtract(BigInteger.ONE).negate(); // the column's most negative value
      }
      return Decimal.apply(new BigDecimal(unscaled, d.scale()), d.precision(), d.scale());
    } else if (t instanceof StringType) {
      String[] pool = {"", "a", "ab", "c", "é", "日本語", "🙂x", "a longer string that is not inline at all"};
      return UTF8String.fromString(pool[r.nextInt(pool.length)] + (r.nextBoolean() ? "" : r.nextInt(100)));
    } else if (t instanceof BinaryType) {
      byte[] b = new byte[r.nextInt(20)];
      r.nextBytes(b);
      return b;
    } else if (t instanceof ArrayType a) {
      Object[] items = new Object[r.nextInt(4)];
      for (int i = 0; i < items.length; i++) {
        items[i] = value(a.elementType(), r);
      }
      return new GenericArrayData(items);
    } else if (t instanceof StructType s) {
      Object[] fields = new Object[s.fields().length];
      for (int i = 0; i < fields.length; i++) {
        fields[i] = value(s.fields()[i].dataType(), r);
      }
      return new GenericInternalRow(fields);
    } else if (t instanceof MapType m) {
      int n = r.nextInt(3);
      Object[] keys = new Object[n];
      Object[] values = new Object[n];
      for (int i = 0; i < n; i++) {
        keys[i] = UTF8String.fromString("k" + i);
        values[i] = value(m.valueType(), r);
      }
      return new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values));
    }
    throw new IllegalArgumentException(t.simpleString());
  }

  @SafeVarargs
  private static <T> T pick(Random r, T... options) {
    return options[r.nextInt(options.length)];
  }

  public static List<InternalRow> rows(StructType schema, int n, long seed, boolean unsafe) {
    Random r = new Random(seed);
    UnsafeProjection toUnsafe = UnsafeProjection.create(schema);
    List<InternalRow> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Object[] values = new Object[schema.fields().length];
      for (int c = 0; c < values.length; c++) {
        values[c] = value(schema.fields()[c].dataType(), r);
      }
      InternalRow row = new GenericInternalRow(values);
      rows.add(unsafe ? toUnsafe.apply(row).copy() : row);
    }
    return rows;
  }
}
