package io.rowmatch.spark.arrow

import scala.jdk.CollectionConverters._

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, NamedExpression, SortOrder}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.{OrderPreservingUnaryExecNode, PartitioningPreservingUnaryExecNode, SparkPlan}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

import io.rowmatch.spark.expression.ColumnarExpressions
import io.rowmatch.spark.metrics.OperatorTime

/**
 * Spark's Project on Arrow batches. Column picks and renames (`Project [a, b AS c]` over a join's output) share
 * the child's vectors, zero copy; computed entries are evaluated by the columnar expression kernels into new
 * vectors (valid until the next batch), while the picked columns of the same list are still shared.
 */
case class RowmatchProjectExec(projectList: Seq[NamedExpression], child: SparkPlan, settings: ArrowSettings)
  extends PartitioningPreservingUnaryExecNode with OrderPreservingUnaryExecNode with ArrowBatchProducer
  with ArrowBatchConsumer {

  override def nodeName: String = "RowmatchProject"

  override def output: Seq[Attribute] = projectList.map(_.toAttribute)

  override protected def outputExpressions: Seq[NamedExpression] = projectList

  override protected def orderingExpressions: Seq[SortOrder] = child.outputOrdering

  override def supportsColumnar: Boolean = true

  /**
   * A pure pick makes new batches over the child's vectors, treated as owned as a join's or aggregate's are (the
   * rule relies on it); computed columns are released at the next batch, so those batches are not owned.
   */
  override def ownsOutputBatches(): Boolean = RowmatchProjectExec.selectsOnly(projectList)

  /** Only a computing list has a time to show: a pure pick is a few references per batch. */
  override lazy val metrics: Map[String, SQLMetric] =
    if (RowmatchProjectExec.selectsOnly(projectList)) Map.empty
    else Map("projectTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "time to project"))

  override protected def doExecute(): RDD[InternalRow] =
    throw new IllegalStateException(s"$nodeName is columnar only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    if (!RowmatchProjectExec.selectsOnly(projectList)) {
      val list = projectList
      val input = child.output
      val names = projectList.map(_.name).toArray
      val s = settings
      val projectTime = longMetric("projectTime")
      return child.executeColumnar().mapPartitions { batches =>
        val compiled = ColumnarExpressions.compile(list, input)
        val time = new OperatorTime
        val projected = ColumnarProject.run(time.input(batches.asJava), compiled, names, s, TaskContext.get())
        time.own(projected, projectTime).asScala
      }
    }
    val ordinals = projectList.map { e =>
      val a = RowmatchProjectExec.selects(e).get
      val i = child.output.indexWhere(_.exprId == a.exprId)
      require(i >= 0, s"$nodeName: ${a.sql} is not an output of ${child.nodeName}")
      i
    }.toArray
    child.executeColumnar().mapPartitions { batches =>
      batches.map { b =>
        val columns = new Array[ColumnVector](ordinals.length)
        var i = 0
        while (i < ordinals.length) {
          columns(i) = b.column(ordinals(i))
          i += 1
        }
        new ColumnarBatch(columns, b.numRows())
      }
    }
  }

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${projectList.map(_.sql).mkString("[", ", ", "]")}"

  override protected def withNewChildInternal(newChild: SparkPlan): RowmatchProjectExec =
    copy(child = newChild)
}

object RowmatchProjectExec {
  /** The child column an entry of a project list picks: an attribute, or an attribute renamed by an alias. */
  def selects(e: NamedExpression): Option[Attribute] = e match {
    case a: Attribute => Some(a)
    case Alias(a: Attribute, _) => Some(a)
    case _ => None
  }

  def selectsOnly(projectList: Seq[NamedExpression]): Boolean = projectList.forall(selects(_).isDefined)

  /** Why the list is not evaluated columnar over this input, or None. */
  def unsupported(projectList: Seq[NamedExpression], input: Seq[Attribute]): Option[String] =
    if (selectsOnly(projectList)) None else Option(ColumnarExpressions.unsupported(projectList, input))
}
