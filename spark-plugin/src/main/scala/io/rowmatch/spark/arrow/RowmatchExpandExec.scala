package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, UnknownPartitioning}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{ExpandExec, SparkPlan, UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.expression.ColumnarExpressions
import io.rowmatch.spark.metrics.OperatorTime

/**
 * Spark's Expand (ROLLUP, CUBE, GROUPING SETS, several DISTINCT aggregates) on Arrow batches: each input batch
 * gives one output batch per projection, in Spark's order. A projection's column picks share the input's vectors
 * (zero copy); its literals (the nulls of the columns a grouping set leaves out, the grouping id) and any computed
 * entry are evaluated by the columnar expression kernels (ColumnarProject). Vanilla makes rows of its Arrow input,
 * expands them row by row, and the aggregation above converts the k-fold rows back into Arrow.
 */
case class RowmatchExpandExec(projections: Seq[Seq[Expression]], output: Seq[Attribute], child: SparkPlan,
    settings: ArrowSettings) extends UnaryExecNode with ArrowBatchProducer with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchExpand"

  // As ExpandExec: the output's rows of one input row repeat over the grouping sets, so no partitioning survives.
  override def outputPartitioning: Partitioning = UnknownPartitioning(0)

  @transient override lazy val references: AttributeSet = AttributeSet(projections.flatten.flatMap(_.references))

  override def supportsColumnar: Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "expandTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to expand"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val sets = projections
    val input = child.output
    val names = output.map(_.name).toArray
    val s = settings
    val rows = longMetric("numOutputRows")
    val expandTime = longMetric("expandTime")
    child.executeColumnar().mapPartitions { batches =>
      val compiled = sets.map(p => ColumnarExpressions.compile(p, input)).toArray
      val time = new OperatorTime
      val expanded = ColumnarProject.run(time.input(batches.asJava), compiled, nodeName, names, s, TaskContext.get())
      time.own(expanded, expandTime).asScala.map { b =>
        rows += b.numRows()
        b
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${projections.map(_.map(_.sql).mkString("[", ", ", "]")).mkString("[", ", ", "]")}"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchExpandExec = copy(child = newChild)
}

object RowmatchExpandExec {
  /** Why the projections are not evaluated columnar over the Expand's input, or None. */
  def unsupported(expand: ExpandExec): Option[String] =
    expand.projections.iterator.map(p => Option(ColumnarExpressions.unsupported(p, expand.child.output)))
      .collectFirst { case Some(why) => why }

  def of(expand: ExpandExec, settings: ArrowSettings): RowmatchExpandExec = {
    val replaced = RowmatchExpandExec(expand.projections, expand.output, expand.child, settings)
    replaced.copyTagsFrom(expand)
    replaced
  }
}
