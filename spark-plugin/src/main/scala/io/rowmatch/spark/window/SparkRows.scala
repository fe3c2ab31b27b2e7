package io.rowmatch.spark.window

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, UnsafeProjection, UnsafeRow}

import io.rowmatch.spark.memory.TaskArrowMemory

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

private[window] object SparkRows {
  /**
   * The buffer of the rows a window operator holds in this task: at most `cap` bytes, reserved from the task's memory
   * in Spark's memory manager as they grow (so Spark's own operators and the other tasks see them), and released when
   * the task ends at the latest.
   */
  def heldBytes(cap: Long, memoryLimit: Long): HeldBytes = {
    val task = TaskContext.get()
    val memory = TaskArrowMemory.memoryOf(TaskArrowMemory.forTask(task, memoryLimit))
    val held = new HeldBytes(cap, if (memory == null) HeldBytes.Memory.NONE else new HeldBytes.Memory {
      override def tryReserve(bytes: Long): Boolean = memory.tryReserve(bytes)
      override def release(bytes: Long): Unit = memory.unreserve(bytes)
    })
    // Registered after the task's memory, so it runs before the memory is closed (Spark runs them in reverse).
    task.addTaskCompletionListener[Unit](_ => held.clear())
    held
  }
}
