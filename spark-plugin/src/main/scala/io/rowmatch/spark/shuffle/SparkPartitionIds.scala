package io.rowmatch.spark.shuffle

import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{HashPartitioning, Partitioning, SinglePartition}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Partition ids for the Arrow shuffle, exactly Spark's (`HashPartitioning`'s pmod(murmur3(keys), n)), so a
 * Rowmatch exchange and a vanilla one put every key in the same partition: a join may read one side from
 * each. Keys that are plain columns of simple types are hashed column by column on the Arrow buffers
 * (ColumnarPartitionIds); any other key expression runs Spark's own projection on the batch's rows.
 */
object SparkPartitionIds {
  /** Whether the Arrow shuffle can produce this partitioning (range and round-robin need Spark's row paths). */
  def unsupportedReason(partitioning: Partitioning): String = partitioning match {
    case _: HashPartitioning | SinglePartition => null
    case other => s"the Arrow shuffle does not produce ${other.getClass.getSimpleName}"
  }

  /** Built on the executor, once per task (the projection is generated code). */
  def create(partitioning: Partitioning, output: Seq[Attribute]): BatchPartitionIds = partitioning match {
    case SinglePartition => new SingleIds
    case h: HashPartitioning =>
      val ordinals = h.expressions.map {
        case a: Attribute => output.indexWhere(_.exprId == a.exprId)
        case _ => -1
      }
      val columnar =
        if (ordinals.forall(_ >= 0)) {
          ColumnarPartitionIds.forKeys(ordinals.toArray, h.expressions.map(_.dataType).toArray, h.numPartitions)
        } else null
      if (columnar != null) columnar
      else new ProjectedIds(UnsafeProjection.create(h.partitionIdExpression :: Nil, output))
    case other => throw new IllegalArgumentException(unsupportedReason(other))
  }

  private final class SingleIds extends BatchPartitionIds {
    private var ids = new Array[Int](0)
    override def of(batch: ColumnarBatch): Array[Int] = {
      if (ids.length < batch.numRows()) ids = new Array[Int](batch.numRows())
      ids
    }
  }

  private final class ProjectedIds(projection: UnsafeProjection) extends BatchPartitionIds {
    private var ids = new Array[Int](0)
    override def of(batch: ColumnarBatch): Array[Int] = {
      val n = batch.numRows()
      if (ids.length < n) ids = new Array[Int](n)
      var i = 0
      while (i < n) {
        ids(i) = projection(batch.getRow(i)).getInt(0)
        i += 1
      }
      ids
    }
  }
}
