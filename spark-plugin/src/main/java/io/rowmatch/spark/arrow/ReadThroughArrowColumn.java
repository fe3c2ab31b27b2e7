package io.rowmatch.spark.arrow;

import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.CalendarInterval;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A column made into Arrow only when something reads it (a deferred gather, a scan's column copied on read): every
 * read, as a vector or value by value, goes to {@link #materialized()}, made on the first one. It stays an
 * ArrowColumnVector so Rowmatch operators recognise it; the accessor Spark builds over the vector given to the
 * constructor is never used.
 */
abstract class ReadThroughArrowColumn extends ArrowColumnVector {
  ReadThroughArrowColumn(ValueVector typeOf) {
    super(typeOf);
  }

  /** The column in Arrow, made on the first call. */
  abstract ArrowColumnVector materialized();

  @Override
  public final ValueVector getValueVector() {
    return materialized().getValueVector();
  }

  @Override
  public final boolean hasNull() {
    return materialized().hasNull();
  }

  @Override
  public final int numNulls() {
    return materialized().numNulls();
  }

  @Override
  public final boolean isNullAt(int rowId) {
    return materialized().isNullAt(rowId);
  }

  @Override
  public final boolean getBoolean(int rowId) {
    return materialized().getBoolean(rowId);
  }

  @Override
  public final byte getByte(int rowId) {
    return materialized().getByte(rowId);
  }

  @Override
  public final short getShort(int rowId) {
    return materialized().getShort(rowId);
  }

  @Override
  public final int getInt(int rowId) {
    return materialized().getInt(rowId);
  }

  @Override
  public final long getLong(int rowId) {
    return materialized().getLong(rowId);
  }

  @Override
  public final float getFloat(int rowId) {
    return materialized().getFloat(rowId);
  }

  @Override
  public final double getDouble(int rowId) {
    return materialized().getDouble(rowId);
  }

  @Override
  public final Decimal getDecimal(int rowId, int precision, int scale) {
    return materialized().getDecimal(rowId, precision, scale);
  }

  @Override
  public final UTF8String getUTF8String(int rowId) {
    return materialized().getUTF8String(rowId);
  }

  @Override
  public final CalendarInterval getInterval(int rowId) {
    return materialized().getInterval(rowId);
  }

  @Override
  public final byte[] getBinary(int rowId) {
    return materialized().getBinary(rowId);
  }

  @Override
  public final ColumnarArray getArray(int rowId) {
    return materialized().getArray(rowId);
  }

  @Override
  public final ColumnarMap getMap(int rowId) {
    return materialized().getMap(rowId);
  }

  @Override
  public final ArrowColumnVector getChild(int ordinal) {
    return materialized().getChild(ordinal);
  }
}
