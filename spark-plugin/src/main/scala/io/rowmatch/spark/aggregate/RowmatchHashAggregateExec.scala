package io.rowmatch.spark.aggregate

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.arrow.{ArrowBatchConsumer, ArrowBatchProducer}

/**
 * Columnar hash aggregation on Arrow batches, replacing Spark's Hash/ObjectHash/SortAggregateExec.
 *
 * A thin Scala shell, because Spark plan nodes are Scala case classes at heart: tree rewrites call
 * `copy`/`withNewChildInternal`/`productIterator`, and BaseAggregateExec (which gives us Spark's own
 * output, required distribution and partitioning for the same fields) is a Scala trait with concrete
 * members. All the work is Java: the planner (AggregatePlanner) builds `spec`, and
 * HashAggregateRunner executes it per partition.
 */
case class RowmatchHashAggregateExec(
    requiredChildDistributionExpressions: Option[Seq[Expression]],
    isStreaming: Boolean,
    numShufflePartitions: Option[Int],
    groupingExpressions: Seq[NamedExpression],
    aggregateExpressions: Seq[AggregateExpression],
    aggregateAttributes: Seq[Attribute],
    initialInputBufferOffset: Int,
    resultExpressions: Seq[NamedExpression],
    child: SparkPlan,
    spec: AggregateSpec,
    replaced: String)
  extends BaseAggregateExec with ArrowBatchProducer with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchHashAggregate"

  override def supportsColumnar: Boolean = true

  override def ownsOutputBatches(): Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numOutputBatches" -> SQLMetrics.createMetric(sparkContext, "number of output batches"),
    "partialSkippedRows" -> SQLMetrics.createMetric(sparkContext, "partial aggregation skipped rows"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val s = spec
    val rows = longMetric("numOutputRows")
    val batches = longMetric("numOutputBatches")
    val skipped = longMetric("partialSkippedRows")
    child.executeColumnar().mapPartitions { input =>
      HashAggregateRunner.run(s, input.asJava, TaskContext.get(), (n: Long) => skipped += n).asScala.map { b =>
        rows += b.numRows()
        batches += 1
        b
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName(keys=${groupingExpressions.mkString("[", ", ", "]")}, " +
      s"functions=${aggregateExpressions.mkString("[", ", ", "]")}, " +
      s"output=${output.mkString("[", ", ", "]")}, replaces=$replaced)"

  override def verboseStringWithOperatorId(): String = simpleString(Int.MaxValue)

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchHashAggregateExec =
    copy(child = newChild)
}
