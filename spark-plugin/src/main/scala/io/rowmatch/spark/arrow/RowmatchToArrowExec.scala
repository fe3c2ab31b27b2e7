package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{RowToColumnarTransition, SparkPlan}
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch

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

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val schema = StructType(child.output.map(a => StructField(a.name, a.dataType, a.nullable)))
    val s = settings
    if (child.supportsColumnar) {
      child.executeColumnar().mapPartitions { batches =>
        ArrowTransitions.fromColumnar(batches.asJava, schema, s, TaskContext.get()).asScala
      }
    } else {
      child.execute().mapPartitions { rows =>
        ArrowTransitions.fromRows(rows.asJava, schema, s, TaskContext.get()).asScala
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchToArrowExec =
    copy(child = newChild)
}
