package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, IsNotNull, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.vectorized.ColumnarBatch

/**
 * Spark's Filter when its condition is only `isnotnull(column)` conjuncts (the filters Spark infers on
 * join keys), on Arrow batches, so a scan feeding a Rowmatch shuffle, join or aggregate is not turned into
 * rows just to drop null keys. Batches without such nulls pass through untouched. The output marks the
 * filtered columns non-nullable, exactly as FilterExec does.
 */
case class RowmatchFilterExec(condition: Expression, child: SparkPlan, settings: ArrowSettings)
  extends UnaryExecNode with ArrowBatchProducer with ArrowBatchConsumer {

  // The planner only builds this node for an isnotnull-only condition over the child's columns.
  private def notNullIds =
    RowmatchFilterExec.notNullOnly(condition, child.output).getOrElse(Nil).map(_.exprId).toSet

  override def nodeName: String = "RowmatchFilter"

  override def output: Seq[Attribute] = {
    val ids = notNullIds
    child.output.map(a => if (a.nullable && ids.contains(a.exprId)) a.withNullability(false) else a)
  }

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def supportsColumnar: Boolean = true

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar; Spark should have added ColumnarToRowExec")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val ids = notNullIds
    val ordinals = child.output.zipWithIndex.collect { case (a, i) if ids.contains(a.exprId) => i }.toArray
    val s = settings
    val rows = longMetric("numOutputRows")
    child.executeColumnar().mapPartitions { batches =>
      NotNullFilter.run(batches.asJava, ordinals, s, TaskContext.get()).asScala.map { b =>
        rows += b.numRows()
        b
      }
    }
  }

  override def simpleString(maxFields: Int): String = s"$nodeName $condition"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchFilterExec = copy(child = newChild)
}

object RowmatchFilterExec {
  /** The columns of a condition made only of `isnotnull(column)` conjuncts, or None for any other condition. */
  def notNullOnly(condition: Expression, input: Seq[Attribute]): Option[Seq[Attribute]] = {
    val ids = input.map(_.exprId).toSet
    def conjuncts(e: Expression): Option[Seq[Attribute]] = e match {
      case And(l, r) => for (a <- conjuncts(l); b <- conjuncts(r)) yield a ++ b
      case IsNotNull(a: Attribute) if ids.contains(a.exprId) => Some(Seq(a))
      case _ => None
    }
    conjuncts(condition)
  }
}
