package io.rowmatch.spark.window

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, SortOrder, UnsafeRow}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateOrdering
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{LocalTableScanExec, SortExec, SparkPlan, UnaryExecNode}

/**
 * The local sort under a Window (or a final window group limit) replaced by what they read of it: each partition-key
 * group's rows together, in the window's order within the group (GroupedSort: a hash map of groups, each sorted
 * alone). Past `bufferBytes` of rows held (or the task memory Spark grants), the rows go through Spark's own sorter
 * for the replaced sort (`sort`, which spills) instead. The output is not sorted across groups, so it stands only
 * under a window operator whose output order no ancestor reads.
 *
 * @param withinGroup the order of a group's rows (the sort's orders after its leading partition keys; empty: any)
 */
case class RowmatchWindowSortExec(partitionSpec: Seq[Expression], withinGroup: Seq[SortOrder], sortOrder: Seq[SortOrder],
    bufferBytes: Long, memoryLimit: Long, child: SparkPlan) extends UnaryExecNode {

  override def nodeName: String = "RowmatchWindowSort"

  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = Nil

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numGroups" -> SQLMetrics.createMetric(sparkContext, "number of groups"),
    "numSpillSorts" -> SQLMetrics.createMetric(sparkContext, "number of tasks sorted by Spark's sorter"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"))

  override protected def doExecute(): RDD[InternalRow] = {
    val (keys, input, cap, limitBytes) = (partitionSpec, child.output, bufferBytes, memoryLimit)
    val order = withinGroup
    // Spark's sort of the same rows, for a task whose rows exceed the buffer. Its sorter reads only the sort orders and
    // the row schema, so it stands over an empty leaf of the child's output: the task does not carry the child's plan.
    val spillSort = SortExec(sortOrder, global = false, LocalTableScanExec(child.output, Nil, None))
    val groups = longMetric("numGroups")
    val spillSorts = longMetric("numSpillSorts")
    val spillSize = longMetric("spillSize")
    child.execute().mapPartitions { rows =>
      val ordering = if (order.isEmpty) null else GenerateOrdering.generate(order, input)
      val fallback = new java.util.function.Function[java.util.Iterator[InternalRow], java.util.Iterator[InternalRow]] {
        override def apply(held: java.util.Iterator[InternalRow]): java.util.Iterator[InternalRow] = {
          spillSorts += 1
          val metrics = TaskContext.get().taskMetrics()
          val before = metrics.memoryBytesSpilled
          val sorted = spillSort.createSorter().sort(held.asScala.map(_.asInstanceOf[UnsafeRow]))
          spillSize += metrics.memoryBytesSpilled - before
          sorted.asJava
        }
      }
      val bySort = new GroupedSort[InternalRow, UnsafeRow](rows.asJava, new SparkRows(keys, input), ordering,
        SparkRows.heldBytes(cap, limitBytes), fallback)
      new Iterator[InternalRow] {
        private var reported = false
        override def hasNext: Boolean = bySort.hasNext || {
          if (!reported) {
            reported = true
            groups += bySort.groupCount()
          }
          false
        }
        override def next(): InternalRow = bySort.next()
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName [${partitionSpec.map(_.sql).mkString(", ")}], [${withinGroup.map(_.sql).mkString(", ")}]"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchWindowSortExec = copy(child = newChild)
}

object RowmatchWindowSortExec {
  def of(partitionSpec: Seq[Expression], sort: SortExec, withinGroup: java.util.List[SortOrder],
      bufferBytes: Long, memoryLimit: Long): RowmatchWindowSortExec = {
    val replaced = RowmatchWindowSortExec(partitionSpec, withinGroup.asScala.toSeq, sort.sortOrder, bufferBytes,
      memoryLimit, sort.child)
    replaced.copyTagsFrom(sort)
    replaced
  }
}
