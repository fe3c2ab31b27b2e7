package io.rowmatch.spark.window

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}

/**
 * Spark rows for the window operators: keys by Spark's own projection, equal when their bytes are (as Spark's window
 * operators compare a group's key with the next row's); kept rows are UnsafeRow copies.
 */
private[window] final class SparkRows(keys: Seq[Expression], input: Seq[Attribute])
    extends GroupRows[InternalRow, UnsafeRow] {
  private val keyOf = UnsafeProjection.create(keys, input)
  private lazy val toUnsafe = UnsafeProjection.create(input, input)

  override def key(row: InternalRow): UnsafeRow = keyOf(row)
  override def copyKey(key: UnsafeRow): UnsafeRow = key.copy()
  override def copy(row: InternalRow): InternalRow = row match {
    case u: UnsafeRow => u.copy()
    case other => toUnsafe(other).copy()
  }
  // An UnsafeRow copy: its bytes plus the object and its byte array's headers and a slot in the group's array.
  override def bytes(row: InternalRow): Long = row.asInstanceOf[UnsafeRow].getSizeInBytes + 64L
  override def keyBytes(key: UnsafeRow): Long = key.getSizeInBytes + 64L + 48L
}
