package org.apache.spark.sql.execution

import org.apache.spark.rdd.{RDD, SQLPartitioningAwareUnionRDD}
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's UnionExec, with a columnar path that keeps the partitioning the node reports.
 *
 * Spark 4.1's UnionExec reports its children's common hash partitioning (`spark.sql.unionOutputPartitioning`),
 * so the planner puts no exchange between it and an aggregation or join by the same keys above it. Its row
 * path honours that (partition i of the union is partition i of every child); its columnar path
 * concatenates the children's partitions, so each key's rows land in two partitions of the union and the
 * parent makes one group (or misses one match) per child. This node is a UnionExec in every other respect
 * (Spark's rules that match UnionExec, AQE's coalesce groups, output and partitioning all see one), and it
 * replaces every union that runs columnar: the transition rule swaps it in after Spark chose columnar.
 * Not a case class of its own: extending Spark's keeps `case u: UnionExec` and `UnionExec(children)` true.
 * In Spark's package because SQLPartitioningAwareUnionRDD (what the row path uses) is `private[spark]`.
 */
class RowmatchUnionExec(unionChildren: Seq[SparkPlan]) extends UnionExec(unionChildren) {

  override def nodeName: String = "RowmatchUnion"

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = outputPartitioning match {
    case _: UnknownPartitioning => sparkContext.union(children.map(_.executeColumnar()))
    case known =>
      val nonEmpty = children.map(_.executeColumnar()).filter(_.partitions.nonEmpty)
      new SQLPartitioningAwareUnionRDD(sparkContext, nonEmpty, known.numPartitions)
  }

  // Never equal to Spark's UnionExec with the same children: tree rewrites keep the old node when the new
  // one is equal (fastEquals), which would silently undo the replacement.
  override def canEqual(that: Any): Boolean = that.isInstanceOf[RowmatchUnionExec]

  override def equals(that: Any): Boolean = that match {
    case u: RowmatchUnionExec => children == u.children
    case _ => false
  }

  override def hashCode(): Int = 31 * children.hashCode() + 1

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): UnionExec =
    new RowmatchUnionExec(newChildren)
}
