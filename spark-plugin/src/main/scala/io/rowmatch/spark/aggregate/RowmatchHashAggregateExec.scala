package io.rowmatch.spark.aggregate

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, AttributeSeq, AttributeSet, Expression, NamedExpression}
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.arrow.{ArrowBatchConsumer, ArrowBatchProducer}
import io.rowmatch.spark.memory.SpillMetricsOf
import io.rowmatch.spark.metrics.OperatorTime

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
    "partialSkippedRows" -> SQLMetrics.createMetric(sparkContext, "partial aggregation skipped rows"),
    "spillSize" -> SQLMetrics.createSizeMetric(sparkContext, "spill size"),
    "numSpills" -> SQLMetrics.createMetric(sparkContext, "number of spills"),
    "peakMemory" -> SQLMetrics.createSizeMetric(sparkContext, "peak memory"),
    // As Spark's: the time in the aggregation's loop, reading its input included.
    "aggTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time in aggregation build"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val s = spec
    val rows = longMetric("numOutputRows")
    val batches = longMetric("numOutputBatches")
    val skipped = longMetric("partialSkippedRows")
    val aggTime = longMetric("aggTime")
    val spills = SpillMetricsOf(longMetric("spillSize"), longMetric("numSpills"), longMetric("peakMemory"))
    child.executeColumnar().mapPartitions { input =>
      val aggregated = HashAggregateRunner.run(s, input.asJava, TaskContext.get(), (n: Long) => skipped += n, spills)
      OperatorTime.total(aggregated, aggTime).asScala.map { b =>
        rows += b.numRows()
        batches += 1
        b
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName(keys=${groupingExpressions.mkString("[", ", ", "]")}, " +
      s"functions=${aggregateExpressions.mkString("[", ", ", "]")}, " +
      s"output=${output.mkString("[", ", ", "]")}$results, replaces=$replaced)"

  /** How the output projection runs, when there is one: the columnar kernels, or Spark's rows (with why). */
  private def results: String =
    if (spec.outputPick != null) ""
    else Option(spec.projectionRowReason()).fold(" (results columnar)")(r => s" (results by rows: $r)")

  override def verboseStringWithOperatorId(): String = simpleString(Int.MaxValue)

  /**
   * The attributes doCanonicalize may normalize to ordinals: the child's output and those the node itself
   * produces, as in Spark's HashAggregateExec (without the aggregate's own attributes a final aggregate's
   * result expressions keep their exprIds and never match). Then any attribute of the result expressions
   * none of those is, in order of appearance: the partial-stage buffers produced by the aggregate's
   * functions before PreProjection.readComputed gave them new instances (see ReplaceOperators).
   */
  override def allAttributes: AttributeSeq = {
    val own = child.output ++ aggregateBufferAttributes ++ aggregateAttributes ++
      aggregateExpressions.flatMap(_.aggregateFunction.inputAggBufferAttributes)
    val known = AttributeSet(own)
    val others = resultExpressions.flatMap(_.collect { case a: AttributeReference if !known.contains(a) => a })
    own ++ others.distinct
  }

  /**
   * Spark's canonical form of the Catalyst fields (the same fields as its aggregate's) and the spec in its
   * canonical form: `spec` is not an Expression, so Spark's doCanonicalize would keep it as it is, with
   * the exprIds and names it carries, and two equal aggregations would never match for reuse.
   */
  override protected def doCanonicalize(): SparkPlan =
    super.doCanonicalize().asInstanceOf[RowmatchHashAggregateExec].copy(spec = spec.canonicalized())

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchHashAggregateExec =
    copy(child = newChild)
}
