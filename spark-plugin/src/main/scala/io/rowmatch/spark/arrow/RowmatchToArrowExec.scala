package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{RowToColumnarTransition, SparkPlan, WholeStageCodegenExec}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

import io.rowmatch.spark.metrics.OperatorTime

/**
 * Rows, or Spark columnar batches that are not Arrow, into Arrow batches for a Rowmatch operator; Arrow
 * batches pass through zero-copy. It extends RowToColumnarTransition so Spark's transition pass leaves it
 * alone. A thin Scala shell (plan nodes are case classes); the conversion is Java (ArrowTransitions).
 */
case class RowmatchToArrowExec(child: SparkPlan, settings: ArrowSettings)
  extends RowToColumnarTransition with ArrowBatchProducer {

  override def nodeName: String = "RowmatchToArrow"

  override def output: Seq[Attribute] = child.output

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def supportsColumnar: Boolean = true

  /** Rows and batches out, and the copy's own time (the child's excluded). */
  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numOutputBatches" -> SQLMetrics.createMetric(sparkContext, "number of output batches"),
    "convertTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to convert to Arrow"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val schema = StructType(child.output.map(a => StructField(a.name, a.dataType, a.nullable)))
    val s = settings
    val rows = longMetric("numOutputRows")
    val batches = longMetric("numOutputBatches")
    val convertTime = longMetric("convertTime")
    def count(out: Iterator[ColumnarBatch]): Iterator[ColumnarBatch] = out.map { b =>
      rows += b.numRows()
      batches += 1
      b
    }
    def counted(time: OperatorTime, out: java.util.Iterator[ColumnarBatch]): Iterator[ColumnarBatch] =
      count(time.own(out, convertTime).asScala)
    val sinkStage = child match {
      case stage: WholeStageCodegenExec => ArrowSinkExec.over(stage, schema, s)
      case _ => None
    }
    if (child.supportsColumnar) {
      child.executeColumnar().mapPartitions { input =>
        val time = new OperatorTime
        counted(time, ArrowTransitions.fromColumnar(time.input(input.asJava), schema, s, TaskContext.get()))
      }
    } else if (sinkStage.isDefined) {
      // Spark's stage writes its rows into Arrow itself: the conversion's time is part of the stage's.
      sinkStage.get.execute().mapPartitions(rows => count(rows.map(ArrowRowSink.batchOf)))
    } else {
      child.execute().mapPartitions { input =>
        val time = new OperatorTime
        counted(time, ArrowTransitions.fromRows(time.input(input.asJava), schema, s, TaskContext.get()))
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchToArrowExec =
    copy(child = newChild)
}
